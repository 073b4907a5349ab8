import type { Aggregate, EventDraft, EventMetadata } from '../domain/message.js'
import { ConcurrencyError, type AggregateKey } from '../infra/nats/event-store.js'
import { streamOf } from '../infra/nats/subjects.js'
import type { CommandContext } from './context.js'
import { unborn, type Executed, type Issuer } from './execute.js'

const ATTEMPTS = 3

export interface Together {
  readonly key: AggregateKey & { accountId: string }
}

/**
 * One command whose decision spans several aggregates of a category (one stream), stored all
 * or none (invariant 5, ADR 0034): load each, `decide` on their states, append every part as one
 * atomic batch guarded by each aggregate's version (deciding again on fresh loads should one
 * have moved), then bring each one's read-model documents up to date.
 */
export async function executeTogether<State, Event extends EventDraft>(
  infra: CommandContext,
  aggregate: Aggregate<State, Event>,
  parts: readonly Together[],
  decide: (states: readonly State[]) => readonly (readonly Event[])[],
  issuer: Issuer,
): Promise<Executed<State, Event>[]> {
  infra.link.assertUp()
  const metadata: EventMetadata = { correlationId: issuer.correlationId, causationId: null, keyId: issuer.keyId }
  // After a conflict the log holds more than was seen on one of them: the next loads must see past it, even on a lagging replica.
  let mustSee: readonly number[] = parts.map(() => 0)
  for (let attempt = 1; ; attempt++) {
    const loaded = await Promise.all(parts.map(({ key }, i) => infra.events.load(aggregate, key, { atLeast: mustSee[i] ?? 0 })))
    const decided = decide(loaded.map((l) => l.state))
    try {
      const appended = await infra.events.appendTogether(
        aggregate,
        parts.map(({ key }, i) => ({ key, drafts: decided[i] ?? [], expectedVersion: loaded[i]?.version ?? 0 })),
        { metadata, now: infra.clock() },
      )
      return await Promise.all(
        parts.map(async ({ key }, i) => {
          const before = loaded[i] ?? unborn(aggregate)
          const mine = appended[i] ?? []
          const history = [...before.events, ...mine]
          if (mine.length > 0) await infra.projectInline(streamOf(aggregate.category), key.aggregateId, history)
          return { accountId: key.accountId, state: mine.reduce((s, e) => aggregate.evolve(s, e as unknown as Event), before.state), appended: mine, history }
        }),
      )
    } catch (err) {
      if (!(err instanceof ConcurrencyError) || attempt >= ATTEMPTS) throw err
      mustSee = loaded.map((l) => l.version + 1)
      // Writers that collided once would collide again if they retried in lockstep.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt))
    }
  }
}

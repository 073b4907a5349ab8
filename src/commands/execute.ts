import { randomUUID } from 'node:crypto'
import type { Aggregate, EventDraft, EventMetadata, Recorded } from '../domain/message.js'
import { ConcurrencyError, type AggregateKey, type Loaded } from '../infra/nats/event-store.js'
import { streamOf } from '../infra/nats/subjects.js'
import type { CommandContext } from './context.js'

export interface Issuer {
  readonly correlationId: string
  readonly keyId: string | null
  /**
   * When the request reached the service (epoch ms): its answer budget (invariant 11, 2 s)
   * counts from there, time spent queued in the rate limiter included. Null for work no
   * request waits on (an operator's command, a schedule's tick, a worker's run): it counts
   * from the command. Required, so that a request path that forgets it does not compile.
   */
  readonly receivedAt: number | null
}

export const operator = (): Issuer => ({ correlationId: randomUUID(), keyId: null, receivedAt: null })

export interface Executed<State, Event extends EventDraft> {
  readonly accountId: string
  readonly state: State
  readonly appended: readonly Recorded<Event>[]
  readonly history: readonly Recorded<Event>[]
}

const DEFAULT_ATTEMPTS = 3

export interface ExecuteOptions<State, Event extends EventDraft> {
  /**
   * The aggregate as the caller already loaded it: the first attempt decides on it instead
   * of loading it again. Should it have moved since, the append conflicts and the next
   * attempt loads it as usual.
   */
  readonly loaded?: Loaded<State, Event> | undefined
  /** The aggregate id was just generated: the first attempt decides on the initial state (a shorthand for `loaded`). */
  readonly isNew?: boolean
  /** How often to decide again after losing a race to another writer (default 3). */
  readonly maxAttempts?: number
}

export function unborn<State, Event extends EventDraft>(aggregate: Aggregate<State, Event>): Loaded<State, Event> {
  return { state: aggregate.initialState, version: 0, accountId: null, events: [] }
}

/**
 * One command against one aggregate: load it from the log, `decide`, append with
 * optimistic concurrency (redoing the decision if another writer won), then bring the
 * aggregate's own read-model documents up to date so that the caller can read its write.
 */
export async function execute<State, Event extends EventDraft>(
  infra: CommandContext,
  aggregate: Aggregate<State, Event>,
  key: AggregateKey,
  decide: (state: State) => readonly Event[],
  issuer: Issuer,
  options: ExecuteOptions<State, Event> = {},
): Promise<Executed<State, Event>> {
  // After a conflict the log holds more than was seen: the next load must see past it, even on a lagging replica.
  infra.link.assertUp()
  let mustSee = 0
  for (let attempt = 1; ; attempt++) {
    const known = options.loaded ?? (options.isNew ? unborn(aggregate) : undefined)
    const loaded = attempt === 1 && known ? known : await infra.events.load(aggregate, key, { atLeast: mustSee })
    const drafts = decide(loaded.state)
    const accountId = loaded.accountId ?? key.accountId
    const metadata: EventMetadata = { correlationId: issuer.correlationId, causationId: null, keyId: issuer.keyId }
    try {
      const appended = await infra.events.append(aggregate, { accountId, aggregateId: key.aggregateId }, drafts, {
        expectedVersion: loaded.version,
        metadata,
        now: infra.clock(),
      })
      const state = appended.reduce((s, e) => aggregate.evolve(s, e as unknown as Event), loaded.state)
      const history = [...loaded.events, ...appended]
      if (appended.length > 0) await infra.projectInline(streamOf(aggregate.category), key.aggregateId, history)
      return { accountId, state, appended, history }
    } catch (err) {
      if (!(err instanceof ConcurrencyError) || attempt >= (options.maxAttempts ?? DEFAULT_ATTEMPTS)) throw err
      mustSee = loaded.version + 1
      // Writers that collided once would collide again if they retried in lockstep.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt))
    }
  }
}

import { randomUUID } from 'node:crypto'
import { applyToDocument } from '../../projections/index.js'
import type { Aggregate, AggregateCategory, EventDraft, EventMetadata, Recorded } from '../domain/message.js'
import { ConcurrencyError, type AggregateKey, type Loaded } from '../infra/nats/event-store.js'
import { streamOf } from '../infra/nats/subjects.js'
import type { Infra } from '../infra/context.js'

export interface Issuer {
  readonly correlationId: string
  readonly keyId: string | null
}

export const operator = (): Issuer => ({ correlationId: randomUUID(), keyId: null })

export interface Executed<State, Event extends EventDraft> {
  readonly accountId: string
  readonly state: State
  readonly appended: readonly Recorded<Event>[]
  readonly history: readonly Recorded<Event>[]
}

const DEFAULT_ATTEMPTS = 3

export interface ExecuteOptions {
  /**
   * The aggregate id was just generated, so there is nothing to load: the first attempt
   * decides on the initial state and appends expecting no event yet. Should the id exist
   * after all, that append conflicts and the next attempt loads it as usual.
   */
  readonly isNew?: boolean
  /** How often to decide again after losing a race to another writer (default 3). */
  readonly maxAttempts?: number
}

function unborn<State, Event extends EventDraft>(aggregate: Aggregate<State, Event>): Loaded<State, Event> {
  return { state: aggregate.initialState, version: 0, accountId: null, events: [] }
}

/**
 * One command against one aggregate: load it from the log, `decide`, append with
 * optimistic concurrency (redoing the decision if another writer won), then bring the
 * aggregate's own read-model documents up to date so that the caller can read its write.
 */
export async function execute<State, Event extends EventDraft>(
  infra: Infra,
  aggregate: Aggregate<State, Event>,
  key: AggregateKey,
  decide: (state: State) => readonly Event[],
  issuer: Issuer,
  options: ExecuteOptions = {},
): Promise<Executed<State, Event>> {
  for (let attempt = 1; ; attempt++) {
    const loaded = options.isNew && attempt === 1 ? unborn(aggregate) : await infra.events.load(aggregate, key)
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
      if (appended.length > 0) await projectInline(infra, aggregate.category, key.aggregateId, history)
      return { accountId, state, appended, history }
    } catch (err) {
      if (!(err instanceof ConcurrencyError) || attempt >= (options.maxAttempts ?? DEFAULT_ATTEMPTS)) throw err
      // Writers that collided once would collide again if they retried in lockstep.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt))
    }
  }
}

/** A failure here loses nothing: the event is stored and the projector applies it. */
async function projectInline<Event extends EventDraft>(
  infra: Infra,
  category: AggregateCategory,
  aggregateId: string,
  history: readonly Recorded<Event>[],
): Promise<void> {
  const stream = streamOf(category)
  for (const projection of infra.readModels.projections) {
    if (!projection.inline || projection.stream !== stream) continue
    try {
      await applyToDocument(infra.readModels.collection(projection), projection, aggregateId, history)
    } catch (err) {
      infra.log.warn({ err, projection: projection.name, aggregateId }, 'inline projection failed; the projector will apply it')
    }
  }
}

import type { BatchObserver } from './batch-publisher.js'
import type { EventDraft, EventEnvelope, EventMetadata, Recorded } from '../../domain/message.js'

/** Atomic batches of this process open at once on one stream, unless told (ADR 0034). */
export const DEFAULT_BATCHES_PER_STREAM = 16

export interface EventStoreOptions {
  /** At most this many atomic batches of this process open on one stream at once (NATS_BATCHES_PER_STREAM). */
  readonly batchesPerStream: number
  /** Told of waits for a batch slot and of batches sent again (the metrics, ADR 0042). */
  readonly observer?: BatchObserver
}

export interface AggregateKey {
  /** `*` when only the aggregate id is known (operator commands such as key revocation). */
  readonly accountId: string
  readonly aggregateId: string
}

export interface Loaded<State, Event extends EventDraft> {
  readonly state: State
  /** Stream sequence of the aggregate's last event; 0 when it has none. */
  readonly version: number
  readonly accountId: string | null
  readonly events: readonly Recorded<Event>[]
}

export interface AppendOptions {
  readonly expectedVersion: number
  readonly metadata: EventMetadata
  readonly now: Date
}

export interface LoadOptions {
  /**
   * A sequence the caller knows the aggregate has reached (a delivered event, a conflict
   * on append): the load reads at least that far, whichever replica answers first.
   */
  readonly atLeast?: number
}

export interface AppendPart<Event extends EventDraft> {
  readonly key: AggregateKey & { accountId: string }
  readonly drafts: readonly Event[]
  /** The last sequence on this aggregate's subjects that the decision saw (0: none). */
  readonly expectedVersion: number
}

/** An event ready to publish; `guard` on the first event of each aggregate. */
export interface Planned {
  readonly subject: string
  readonly envelope: EventEnvelope
  readonly guard: Guard | null
}

export interface Guard {
  /** The last sequence on the aggregate's subjects that the decision saw (0: none). */
  readonly expected: number
  /** The aggregate's wildcard subject, `mats.<category>.<accountId>.<aggregateId>.*`. */
  readonly subjects: string
}

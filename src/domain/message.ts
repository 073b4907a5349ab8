/**
 * Messages are read-only `{ type, data, metadata }` values. An aggregate's `decide`
 * returns bare `{ type, data }` drafts; the command layer stamps them into envelopes
 * (id, time, ids of the account and aggregate), so `decide` stays pure.
 */
export interface EventDraft<Type extends string = string, Data = unknown> {
  readonly type: Type
  readonly data: Data
}

export interface EventMetadata {
  /** Ties together every event caused by one request or operator command. */
  readonly correlationId: string
  /** The event or command that caused this one, when it is an event. */
  readonly causationId: string | null
  /** The API key (its id, never the key) that issued the command, if any. */
  readonly keyId: string | null
}

export interface EventEnvelope<Type extends string = string, Data = unknown> extends EventDraft<Type, Data> {
  readonly id: string
  /** Schema version of `data` for this `type`; bumped on incompatible change. */
  readonly version: number
  readonly occurredAt: string
  readonly accountId: string
  readonly aggregateId: string
  readonly metadata: EventMetadata
}

/** An event as read back from the log: the envelope plus its position in its stream. */
export type RecordedEvent<E extends EventEnvelope = EventEnvelope> = E & {
  readonly seq: number
  readonly subject: string
}

/** Turns a union of drafts into the union of their recorded envelopes. */
export type Recorded<D extends EventDraft> = D extends EventDraft<infer T, infer Data> ? RecordedEvent<EventEnvelope<T, Data>> : never

/**
 * An aggregate: where its events live, how state is folded from them, and the
 * schema version of each event type it emits.
 */
export interface Aggregate<State, Event extends EventDraft> {
  readonly category: AggregateCategory
  readonly initialState: State
  readonly evolve: (state: State, event: Event) => State
  readonly versions: { readonly [K in Event['type']]: number }
}

export type AggregateCategory = 'account' | 'apikey' | 'session' | 'task' | 'reruns' | 'schedule' | 'action' | 'webhook'

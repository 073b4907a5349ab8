import { randomUUID } from 'node:crypto'
import {
  JetStreamApiCodes,
  JetStreamApiError,
  JetStreamError,
  type JetStreamClient,
  type JetStreamManager,
  type StoredMsg,
} from '@nats-io/jetstream'
import type { Aggregate, AggregateCategory, EventDraft, EventEnvelope, EventMetadata, Recorded, RecordedEvent } from '../../domain/message.js'
import { tryDecodeEvent, UndecodableMessageError } from './decode.js'
import { accountSubjects, aggregateSubjects, eventSubject, streamOf } from './subjects.js'

/** Where readers have always imported it from. */
export { decodeEvent } from './decode.js'

/** Another writer appended to the aggregate since it was loaded. */
export class ConcurrencyError extends Error {
  override readonly name = 'ConcurrencyError'
}

/** The log could not be read or written (NATS down, timeout). */
export class EventStoreUnavailableError extends Error {
  override readonly name = 'EventStoreUnavailableError'
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

const LOAD_BATCH = 256

export class EventStore {
  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
  ) {}

  async load<State, Event extends EventDraft>(
    aggregate: Aggregate<State, Event>,
    key: AggregateKey,
  ): Promise<Loaded<State, Event>> {
    const { events, lastSeq } = await this.readAggregate<Event>(aggregate.category, key)
    let state = aggregate.initialState
    for (const event of events) state = aggregate.evolve(state, event as unknown as Event)
    // The version is the subjects' last message even when it is not an event: appends are guarded by it.
    return { state, version: lastSeq, accountId: events.at(-1)?.accountId ?? null, events }
  }

  /**
   * Appends drafts in order. The first is guarded by `expectedVersion` (the last sequence
   * on the aggregate's subjects); each next one by the sequence its predecessor got, so a
   * concurrent writer makes the append fail with ConcurrencyError instead of interleaving.
   */
  async append<State, Event extends EventDraft>(
    aggregate: Aggregate<State, Event>,
    key: AggregateKey & { accountId: string },
    drafts: readonly Event[],
    options: AppendOptions,
  ): Promise<Recorded<Event>[]> {
    const recorded: Recorded<Event>[] = []
    let expected = options.expectedVersion
    for (const draft of drafts) {
      const envelope: EventEnvelope = {
        id: randomUUID(),
        type: draft.type,
        version: aggregate.versions[draft.type as Event['type']],
        occurredAt: options.now.toISOString(),
        accountId: key.accountId,
        aggregateId: key.aggregateId,
        data: draft.data,
        metadata: options.metadata,
      }
      const subject = eventSubject(aggregate.category, key.accountId, key.aggregateId, draft.type)
      const seq = await this.publish(subject, envelope, expected, aggregateSubjects(aggregate.category, key.accountId, key.aggregateId))
      recorded.push({ ...envelope, seq, subject } as unknown as Recorded<Event>)
      expected = seq
    }
    return recorded
  }

  /**
   * The account's events of a category stored after sequence `afterSeq`, in stream order:
   * what a read model at `afterSeq` has yet to apply.
   */
  async readAccountAfter(category: AggregateCategory, accountId: string, afterSeq: number): Promise<RecordedEvent[]> {
    return (await this.readFiltered(streamOf(category), accountSubjects(category, accountId), afterSeq + 1)).events
  }

  /**
   * The last sequence of the stream that holds a category: a fence for "everything stored
   * before now". Stream info is answered from the stream's state, whatever its size; a
   * `last_by_subj` over an account's wildcard would cost more the more subjects it has.
   */
  async head(category: AggregateCategory): Promise<number> {
    const stream = streamOf(category)
    try {
      return (await this.jsm.streams.info(stream)).state.last_seq
    } catch (err) {
      throw new EventStoreUnavailableError(`could not read the state of ${stream}`, { cause: err })
    }
  }

  /** Sequence of an aggregate's last event (0 if it has none): whether it exists, without reading its history. */
  version(category: AggregateCategory, key: AggregateKey): Promise<number> {
    return this.lastSequenceOn(category, aggregateSubjects(category, key.accountId, key.aggregateId))
  }

  private async lastSequenceOn(category: AggregateCategory, subjects: string): Promise<number> {
    try {
      const msg = await this.jsm.direct.getMessage(streamOf(category), { last_by_subj: subjects })
      return msg?.seq ?? 0
    } catch (err) {
      throw new EventStoreUnavailableError(`could not read the last event on ${subjects}`, { cause: err })
    }
  }

  private async publish(subject: string, envelope: EventEnvelope, expected: number, guard: string): Promise<number> {
    try {
      const ack = await this.js.publish(subject, JSON.stringify(envelope), {
        msgID: envelope.id,
        expect: { lastSubjectSequence: expected, lastSubjectSequenceSubject: guard },
      })
      return ack.seq
    } catch (err) {
      if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamWrongLastSequence) {
        throw new ConcurrencyError(`${guard} moved past sequence ${expected}`, { cause: err })
      }
      throw new EventStoreUnavailableError(`could not append to ${subject}`, { cause: err })
    }
  }

  private async readAggregate<Event extends EventDraft>(category: AggregateCategory, key: AggregateKey): Promise<{ events: Recorded<Event>[]; lastSeq: number }> {
    const { events, lastSeq } = await this.readFiltered(streamOf(category), aggregateSubjects(category, key.accountId, key.aggregateId), 1)
    return { events: events as unknown as Recorded<Event>[], lastSeq }
  }

  /**
   * The events on `filter` from `fromSeq`, and the sequence of the last message read. A
   * message that is not an event is skipped here: the projectors record it (poison-messages.ts),
   * and one bad message must not make an aggregate or an account unreadable.
   */
  private async readFiltered(stream: string, filter: string, fromSeq: number): Promise<{ events: RecordedEvent[]; lastSeq: number }> {
    const events: RecordedEvent[] = []
    let from = fromSeq
    let lastSeq = 0
    for (;;) {
      const batch = await this.directBatch(stream, filter, from)
      for (const msg of batch) {
        const decoded = tryDecodeEvent(msg)
        if (!(decoded instanceof UndecodableMessageError)) events.push(decoded)
        lastSeq = msg.seq
      }
      if (batch.length < LOAD_BATCH) return { events, lastSeq }
      from = lastSeq + 1
    }
  }

  private async directBatch(stream: string, filter: string, seq: number): Promise<StoredMsg[]> {
    try {
      const iterator = await this.jsm.direct.getBatch(stream, { seq, next_by_subj: filter, batch: LOAD_BATCH })
      const messages: StoredMsg[] = []
      for await (const msg of iterator) messages.push(msg)
      return messages
    } catch (err) {
      // An aggregate with no (more) events: the direct get answers 404.
      if (err instanceof JetStreamError && 'code' in err && err.code === 404) return []
      if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.NoMessageFound) return []
      throw new EventStoreUnavailableError(`could not read ${filter} from ${stream}`, { cause: err })
    }
  }
}

import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream'
import { headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node'
import type { Aggregate, AggregateCategory, EventDraft, EventEnvelope, EventMetadata, Recorded, RecordedEvent } from '../../domain/message.js'
import { ConcurrencyError, EventStoreUnavailableError } from './event-store-errors.js'
import { FreshReads } from '../fresh-reads.js'
import { LogReader, type Read } from './log-reader.js'
import { accountSubjects, aggregateSubjects, streamOf, type StreamName } from './subjects.js'
import { isDuplicateInBatch, isWrongLastSequence } from './conflicts.js'
import { BatchPublisher } from './batch-publisher.js'
import { inSpan, SpanKind, traceHeaders } from '../tracing/spans.js'
import { toEnvelope } from './envelope.js'

export { ConcurrencyError, EventStoreUnavailableError } from './event-store-errors.js'

/** nats.js' own default for a JetStream request. */
const DEFAULT_TIMEOUT_MS = 5000
/** Atomic batches of this process open at once on one stream, unless told (ADR 0034). */
export const DEFAULT_BATCHES_PER_STREAM = 16

export interface EventStoreOptions {
  /** At most this many atomic batches of this process open on one stream at once (NATS_BATCHES_PER_STREAM). */
  readonly batchesPerStream: number
}
/** Where readers have always imported it from. */
export { decodeEvent } from './decode.js'

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

/**
 * Concurrent identical reads share one request that begins after all of them asked
 * (fresh-reads.ts): a burst of POSTs of one account reads its account and the task stream's
 * head once or twice, not once each, and what each sees is still as of its own call.
 */
export class EventStore {
  private readonly reader: LogReader
  private readonly reads = new FreshReads<string, Read>()
  private readonly heads = new FreshReads<string, number>()
  private readonly timeoutMs: number
  private readonly batches: BatchPublisher

  constructor(
    nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    options: EventStoreOptions = { batchesPerStream: DEFAULT_BATCHES_PER_STREAM },
  ) {
    this.reader = new LogReader(jsm)
    this.timeoutMs = js.getOptions().timeout ?? DEFAULT_TIMEOUT_MS
    this.batches = new BatchPublisher(nc, options.batchesPerStream)
  }

  /** The aggregate's state from its events; never "absent" for one the log holds (see LogReader). */
  async load<State, Event extends EventDraft>(aggregate: Aggregate<State, Event>, key: AggregateKey, options: LoadOptions = {}): Promise<Loaded<State, Event>> {
    const filter = aggregateSubjects(aggregate.category, key.accountId, key.aggregateId)
    const stream = streamOf(aggregate.category)
    const read = await this.reads.get(`${filter}@${options.atLeast ?? 0}`, () => this.reader.read(stream, filter, 1, options.atLeast))
    const events = read.events as unknown as Recorded<Event>[]
    let state = aggregate.initialState
    for (const event of events) state = aggregate.evolve(state, event as unknown as Event)
    // The version is the subjects' last message even when it is not an event: appends are guarded by it.
    return { state, version: read.lastSeq, accountId: events.at(-1)?.accountId ?? null, events }
  }

  /**
   * Appends a decision's drafts, all or none (invariant 5), guarded by `expectedVersion`
   * (the last sequence on the aggregate's subjects): should another writer have appended
   * since, nothing is stored and the append fails with ConcurrencyError. One event is a plain
   * publish; several are one JetStream atomic batch (ADR 0026), which costs more per append.
   */
  async append<State, Event extends EventDraft>(
    aggregate: Aggregate<State, Event>,
    key: AggregateKey & { accountId: string },
    drafts: readonly Event[],
    options: AppendOptions,
  ): Promise<Recorded<Event>[]> {
    const [appended = []] = await this.appendTogether(aggregate, [{ key, drafts, expectedVersion: options.expectedVersion }], options)
    return appended
  }

  /**
   * One decision over several aggregates of a category (one stream), all or none: one atomic
   * batch carrying a guard per aggregate, each checked at the commit (ADR 0034). Returns each
   * part's recorded events, in the order of `parts`. A part without drafts adds no guard.
   */
  async appendTogether<State, Event extends EventDraft>(
    aggregate: Aggregate<State, Event>,
    parts: readonly AppendPart<Event>[],
    options: Omit<AppendOptions, 'expectedVersion'>,
  ): Promise<Recorded<Event>[][]> {
    const ids = new Set(parts.map((part) => part.key.aggregateId))
    if (ids.size !== parts.length) throw new RangeError('one decision appends to each aggregate once')
    const planned = parts.map((part) => ({
      guard: { expected: part.expectedVersion, subjects: aggregateSubjects(aggregate.category, part.key.accountId, part.key.aggregateId) },
      events: part.drafts.map((draft) => toEnvelope(aggregate, part.key, draft, options)),
    }))
    const all = planned.flatMap(({ guard, events }) => events.map((event, i) => ({ ...event, guard: i === 0 ? guard : null })))
    const [single] = all
    if (single === undefined) return parts.map(() => [])
    const lastSeq = all.length === 1 && single.guard ? await this.publish(single.subject, single.envelope, single.guard) : await this.publishBatch(streamOf(aggregate.category), all)
    let seq = lastSeq - all.length
    return planned.map(({ events }) => events.map(({ subject, envelope }) => ({ ...envelope, seq: ++seq, subject }) as unknown as Recorded<Event>))
  }

  /**
   * One decision's drafts for an aggregate and, in the same atomic batch, an append-only
   * record on another aggregate of the same stream that no decision reads (a task's re-runs,
   * ADR 0038): all or none; only `part` is guarded, so records never conflict with each other.
   */
  async appendWithRecord<State, Event extends EventDraft, RecordState, RecordEvent extends EventDraft>(
    aggregate: Aggregate<State, Event>,
    part: AppendPart<Event>,
    record: { readonly aggregate: Aggregate<RecordState, RecordEvent>; readonly key: AggregateKey & { accountId: string }; readonly drafts: readonly RecordEvent[] },
    options: Omit<AppendOptions, 'expectedVersion'>,
  ): Promise<[Recorded<Event>[], Recorded<RecordEvent>[]]> {
    const stream = streamOf(aggregate.category)
    if (streamOf(record.aggregate.category) !== stream) throw new RangeError(`a record appended with ${aggregate.category} must be in ${stream}`)
    const guard = { expected: part.expectedVersion, subjects: aggregateSubjects(aggregate.category, part.key.accountId, part.key.aggregateId) }
    const decided = part.drafts.map((draft, i) => ({ ...toEnvelope(aggregate, part.key, draft, options), guard: i === 0 ? guard : null }))
    const recorded = record.drafts.map((draft) => ({ ...toEnvelope(record.aggregate, record.key, draft, options), guard: null }))
    const all = [...decided, ...recorded]
    if (all.length === 0) return [[], []]
    let seq = (await this.publishBatch(stream, all)) - all.length
    const stamp = ({ subject, envelope }: Planned) => ({ ...envelope, seq: ++seq, subject })
    return [decided.map(stamp) as unknown as Recorded<Event>[], recorded.map(stamp) as unknown as Recorded<RecordEvent>[]]
  }

  /**
   * The account's events of a category stored after sequence `afterSeq`, in stream order:
   * what a read model at `afterSeq` has yet to apply.
   */
  async readAccountAfter(category: AggregateCategory, accountId: string, afterSeq: number): Promise<readonly RecordedEvent[]> {
    return (await this.reader.read(streamOf(category), accountSubjects(category, accountId), afterSeq + 1)).events
  }

  /**
   * The last sequence of the stream that holds a category: a fence for "everything stored
   * before now". Stream info is answered from the stream's state, whatever its size; a
   * `last_by_subj` over an account's wildcard would cost more the more subjects it has.
   */
  head(category: AggregateCategory): Promise<number> {
    const stream = streamOf(category)
    return this.heads.get(stream, async () => {
      try {
        return (await this.jsm.streams.info(stream)).state.last_seq
      } catch (err) {
        throw new EventStoreUnavailableError(`could not read the state of ${stream}`, { cause: err })
      }
    })
  }

  /** Sequence of an aggregate's last event (0 if it has none): whether it exists, without reading its history. */
  version(category: AggregateCategory, key: AggregateKey): Promise<number> {
    return this.reader.last(streamOf(category), aggregateSubjects(category, key.accountId, key.aggregateId))
  }

  /** One append, traced as a producer span whose context travels in the message's headers (`traceparent`). */
  private publish(subject: string, envelope: EventEnvelope, guard: Guard): Promise<number> {
    const attributes = { 'messaging.system': 'nats', 'messaging.destination.name': subject, 'messaging.message.id': envelope.id }
    return inSpan(`append ${envelope.type}`, { kind: SpanKind.PRODUCER, attributes }, async (span) => {
      try {
        const headers = traceHeaders()
        const ack = await this.js.publish(subject, JSON.stringify(envelope), {
          msgID: envelope.id,
          expect: { lastSubjectSequence: guard.expected, lastSubjectSequenceSubject: guard.subjects },
          ...(headers ? { headers } : {}),
        })
        span.setAttribute('mats.stream.sequence', ack.seq)
        return ack.seq
      } catch (err) {
        throw appendError(err, subject)
      }
    })
  }

  /**
   * Several events as one atomic batch: each aggregate's guard rides on its first message and
   * is checked at the commit against the log as it was before the batch; returns the last
   * one's sequence.
   */
  private publishBatch(stream: StreamName, events: readonly Planned[]): Promise<number> {
    const guarded = events.flatMap(({ guard }) => (guard ? [guard.subjects] : []))
    const attributes = { 'messaging.system': 'nats', 'messaging.destination.name': guarded.join(' '), 'messaging.batch.message_count': events.length }
    return inSpan(`append ${events.length} events`, { kind: SpanKind.PRODUCER, attributes }, async (span) => {
      const messages = events.map(({ subject, envelope, guard }) => {
        const headers = traceHeaders() ?? natsHeaders()
        headers.set('Nats-Msg-Id', envelope.id)
        if (guard) {
          headers.set('Nats-Expected-Last-Subject-Sequence', String(guard.expected))
          headers.set('Nats-Expected-Last-Subject-Sequence-Subject', guard.subjects)
        }
        return { subject, payload: JSON.stringify(envelope), headers }
      })
      try {
        const ack = await this.batches.publish(stream, messages, this.timeoutMs)
        span.setAttribute('mats.stream.sequence', ack.seq)
        return ack.seq
      } catch (err) {
        throw appendError(err, guarded.join(', '))
      }
    })
  }
}

export interface AppendPart<Event extends EventDraft> {
  readonly key: AggregateKey & { accountId: string }
  readonly drafts: readonly Event[]
  /** The last sequence on this aggregate's subjects that the decision saw (0: none). */
  readonly expectedVersion: number
}

/** An event ready to publish; `guard` on the first event of each aggregate. */
interface Planned {
  readonly subject: string
  readonly envelope: EventEnvelope
  readonly guard: Guard | null
}

interface Guard {
  /** The last sequence on the aggregate's subjects that the decision saw (0: none). */
  readonly expected: number
  /** The aggregate's wildcard subject, `mats.<category>.<accountId>.<aggregateId>.*`. */
  readonly subjects: string
}

function appendError(err: unknown, subjects: string): Error {
  if (isWrongLastSequence(err) || isDuplicateInBatch(err)) return new ConcurrencyError(`${subjects} moved past the version the decision saw`, { cause: err })
  return new EventStoreUnavailableError(`could not append to ${subjects}`, { cause: err })
}

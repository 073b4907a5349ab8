import { randomUUID } from 'node:crypto'
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream'
import type { Aggregate, AggregateCategory, EventDraft, EventEnvelope, EventMetadata, Recorded, RecordedEvent } from '../../domain/message.js'
import { ConcurrencyError, EventStoreUnavailableError } from './event-store-errors.js'
import { FreshReads } from '../fresh-reads.js'
import { LogReader, type Read } from './log-reader.js'
import { accountSubjects, aggregateSubjects, eventSubject, streamOf } from './subjects.js'
import { isWrongLastSequence } from './conflicts.js'
import { inSpan, SpanKind, traceHeaders } from '../tracing/spans.js'

export { ConcurrencyError, EventStoreUnavailableError } from './event-store-errors.js'
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

  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
  ) {
    this.reader = new LogReader(jsm)
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
  private publish(subject: string, envelope: EventEnvelope, expected: number, guard: string): Promise<number> {
    const attributes = { 'messaging.system': 'nats', 'messaging.destination.name': subject, 'messaging.message.id': envelope.id }
    return inSpan(`append ${envelope.type}`, { kind: SpanKind.PRODUCER, attributes }, async (span) => {
      try {
        const headers = traceHeaders()
        const ack = await this.js.publish(subject, JSON.stringify(envelope), {
          msgID: envelope.id,
          expect: { lastSubjectSequence: expected, lastSubjectSequenceSubject: guard },
          ...(headers ? { headers } : {}),
        })
        span.setAttribute('mats.stream.sequence', ack.seq)
        return ack.seq
      } catch (err) {
        if (isWrongLastSequence(err)) {
          throw new ConcurrencyError(`${guard} moved past sequence ${expected}`, { cause: err })
        }
        throw new EventStoreUnavailableError(`could not append to ${subject}`, { cause: err })
      }
    })
  }
}

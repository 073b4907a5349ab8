import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream'
import type { NatsConnection } from '@nats-io/transport-node'
import type { Aggregate, AggregateCategory, EventDraft, Recorded, RecordedEvent } from '../../domain/message.js'
import { AppendInDoubtError, EventStoreUnavailableError, type AppendSettlement } from './event-store-errors.js'
import { whileUnreachable } from '../while-unreachable.js'
import { FreshReads } from '../fresh-reads.js'
import { LogReader, type Read } from './log-reader.js'
import { accountSubjects, aggregateSubjects, streamOf, type StreamName } from './subjects.js'
import { toEnvelope } from './envelope.js'
import { EventPublisher } from './event-publisher.js'
import { DEFAULT_BATCHES_PER_STREAM, type AggregateKey, type AppendOptions, type AppendPart, type EventStoreOptions, type Loaded, type LoadOptions, type Planned } from './event-store-types.js'

export { AppendInDoubtError, ConcurrencyError, EventStoreUnavailableError, type AppendSettlement } from './event-store-errors.js'

/** How long an append in doubt is looked for in the log while NATS is still away. */
const LOOK_UP_IN_DOUBT_MS = 60_000
export { DEFAULT_BATCHES_PER_STREAM } from './event-store-types.js'
export type { AggregateKey, AppendOptions, AppendPart, EventStoreOptions, Loaded, LoadOptions } from './event-store-types.js'
/** Where readers have always imported it from. */
export { decodeEvent } from './decode.js'

/**
 * Concurrent identical reads share one request that begins after all of them asked
 * (fresh-reads.ts): a burst of POSTs of one account reads its account and the task stream's
 * head once or twice, not once each, and what each sees is still as of its own call.
 */
export class EventStore {
  private readonly reader: LogReader
  private readonly reads = new FreshReads<string, Read>()
  private readonly heads = new FreshReads<string, number>()
  private readonly publisher: EventPublisher

  constructor(
    nc: NatsConnection,
    js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    options: EventStoreOptions = { batchesPerStream: DEFAULT_BATCHES_PER_STREAM },
  ) {
    this.reader = new LogReader({ nc, jsm })
    this.publisher = new EventPublisher(nc, js, options.batchesPerStream, options.observer)
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
   * An aggregate known at `known.version` brought up to the log: only the events after it are
   * read (a long-lived aggregate such as a schedule is not read whole again after each race).
   */
  async catchUp<State, Event extends EventDraft>(
    aggregate: Aggregate<State, Event>,
    key: AggregateKey,
    known: { readonly state: State; readonly version: number },
    options: LoadOptions = {},
  ): Promise<{ state: State; version: number }> {
    const filter = aggregateSubjects(aggregate.category, key.accountId, key.aggregateId)
    const read = await this.reader.read(streamOf(aggregate.category), filter, known.version + 1, options.atLeast)
    let state = known.state
    for (const event of read.events) state = aggregate.evolve(state, event as unknown as Event)
    return { state, version: Math.max(known.version, read.lastSeq) }
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
    const lastSeq =
      all.length === 1 && single.guard
        ? await this.publisher.publish(single.subject, single.envelope, single.guard).catch((err: unknown) => {
            throw err instanceof AppendInDoubtError ? this.inDoubt(err, streamOf(aggregate.category), single.subject, single.envelope.id) : err
          })
        : await this.publishBatch(streamOf(aggregate.category), all)
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
   * Two decisions on aggregates of two kinds in one stream, each guarded by its own version,
   * as one atomic batch (a schedule's tick and the task it creates, ADR 0039): all or none.
   */
  async appendPair<A, AE extends EventDraft, B, BE extends EventDraft>(
    first: { readonly aggregate: Aggregate<A, AE>; readonly part: AppendPart<AE> },
    second: { readonly aggregate: Aggregate<B, BE>; readonly part: AppendPart<BE> },
    options: Omit<AppendOptions, 'expectedVersion'>,
  ): Promise<[Recorded<AE>[], Recorded<BE>[]]> {
    const [appended = [[], []]] = await this.appendPairs([{ first, second, options }])
    return appended
  }

  /**
   * Several such pairs in one atomic batch (an account's ticks due together, ADR 0051): every
   * guard is checked at the commit, and one that moved refuses them all (ConcurrencyError).
   * Each pair has its own metadata and time.
   */
  async appendPairs<A, AE extends EventDraft, B, BE extends EventDraft>(
    pairs: readonly {
      readonly first: { readonly aggregate: Aggregate<A, AE>; readonly part: AppendPart<AE> }
      readonly second: { readonly aggregate: Aggregate<B, BE>; readonly part: AppendPart<BE> }
      readonly options: Omit<AppendOptions, 'expectedVersion'>
    }[],
  ): Promise<[Recorded<AE>[], Recorded<BE>[]][]> {
    const plan = <S, E extends EventDraft>(aggregate: Aggregate<S, E>, part: AppendPart<E>, options: Omit<AppendOptions, 'expectedVersion'>): Planned[] => {
      const guard = { expected: part.expectedVersion, subjects: aggregateSubjects(aggregate.category, part.key.accountId, part.key.aggregateId) }
      return part.drafts.map((draft, i) => ({ ...toEnvelope(aggregate, part.key, draft, options), guard: i === 0 ? guard : null }))
    }
    const planned = pairs.map(({ first, second, options }) => {
      const stream = streamOf(first.aggregate.category)
      if (streamOf(second.aggregate.category) !== stream) throw new RangeError(`${second.aggregate.category} is not in ${stream}`)
      return { stream, a: plan(first.aggregate, first.part, options), b: plan(second.aggregate, second.part, options) }
    })
    const all = planned.flatMap(({ a, b }) => [...a, ...b])
    const stream = planned[0]?.stream
    if (!stream || all.length === 0) return planned.map(() => [[], []])
    if (planned.some((pair) => pair.stream !== stream)) throw new RangeError(`pairs appended together must all be in ${stream}`)
    let seq = (await this.publishBatch(stream, all)) - all.length
    const stamp = ({ subject, envelope }: Planned) => ({ ...envelope, seq: ++seq, subject })
    return planned.map(({ a, b }) => [a.map(stamp) as unknown as Recorded<AE>[], b.map(stamp) as unknown as Recorded<BE>[]])
  }

  /** Several events as one atomic batch; a commit in doubt is looked up by its first event should its late answer not come. */
  private publishBatch(stream: StreamName, all: readonly Planned[]): Promise<number> {
    return this.publisher.publishBatch(stream, all).catch((err: unknown) => {
      const [first] = all
      throw err instanceof AppendInDoubtError && first ? this.inDoubt(err, stream, first.subject, first.envelope.id) : err
    })
  }

  /**
   * An append in doubt whose acknowledgement never came (connection lost, NATS away past it):
   * what the log holds once NATS answers again says whether it was stored.
   */
  private inDoubt(err: AppendInDoubtError, stream: StreamName, subject: string, eventId: string): AppendInDoubtError {
    const lookUp = async (): Promise<AppendSettlement> => {
      const read = await whileUnreachable(() => this.reader.read(stream, subject, 1), { forMs: LOOK_UP_IN_DOUBT_MS })
      return read.events.some((event) => event.id === eventId) ? 'stored' : 'not-stored'
    }
    return new AppendInDoubtError(err.message, async () => {
      const known = await err.settled
      return known === 'unknown' ? lookUp() : known
    })
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
}

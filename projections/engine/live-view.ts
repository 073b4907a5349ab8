import { DeliverPolicy, type Consumer, type ConsumerMessages, type JetStreamClient, type JetStreamManager, type JsMsg, type SeqMsgRequest } from '@nats-io/jetstream'
import type { Logger } from 'pino'
import type { RecordedEvent } from '../../src/domain/message.js'
import { PoisonMessages } from '../../src/infra/mongo/poison-messages.js'
import { tryDecodeEvent, UndecodableMessageError } from '../../src/infra/nats/decode.js'
import type { NatsLink } from '../../src/infra/nats/link.js'
import { closeOrdered, consumeFollowing, endLevel, orderedConsumerPrefix } from '../../src/infra/nats/ordered-consumers.js'
import { SUBJECT_ROOT } from '../../src/infra/nats/subjects.js'
import { FilteredPosition } from './filtered-position.js'
import { EventNotAppliedError, foldOnto, type Projection, type Stored } from './projection.js'
import type { ReadModels } from './read-models.js'

export interface LiveViewDeps {
  readonly js: JetStreamClient
  readonly jsm: JetStreamManager
  readonly link: Pick<NatsLink, 'onReconnect'>
  readonly readModels: ReadModels
  readonly log: Logger
}

export interface LiveViewSource {
  /** The log events, in stream order, of the document `id` after `afterSeq` (any extra events are ignored). */
  readonly eventsAfter: (id: string, afterSeq: number) => Promise<readonly RecordedEvent[]>
}

interface Entry<Doc> {
  readonly id: string
  doc: Stored<Doc> | null
  /** Events delivered while the entry was loading, applied once it is loaded. */
  pending: RecordedEvent[] | null
  loaded: Promise<void>
}

const RESTART_DELAY_MS = 500
/** A view's consumer is named after its projection, so that an operator (or a test) can tell whose it is. */
export const LIVE_VIEW_CONSUMER_PREFIX = 'live_view_'

/**
 * One projection's documents kept in this process's memory, for the documents it is asked
 * for: each starts from its read-model document plus the log events the read model has
 * not applied yet, then follows the stream as events are stored. Where the read model may
 * lag behind the log, this answers as of a stream position the caller names (`fence`),
 * at the cost of one ordered consumer per process, delivered only the events the projection
 * applies (ADR 0062). The same `evolve` folds both.
 */
export class LiveView<Doc extends { _id: string }> {
  private readonly entries = new Map<string, Entry<Doc>>()
  private readonly position: FilteredPosition
  private readonly subjects: readonly string[]
  private readonly listeners: ((event: RecordedEvent) => void)[] = []
  private warnedAt = Number.NEGATIVE_INFINITY
  private messages: ConsumerMessages | undefined
  private started: Promise<void> | undefined
  private stopped = false

  constructor(
    private readonly deps: LiveViewDeps,
    private readonly projection: Projection,
    private readonly source: LiveViewSource,
  ) {
    this.subjects = projection.canHandle.map((type) => `${SUBJECT_ROOT}.*.*.*.${type}`)
    this.position = new FilteredPosition(
      (after) => this.nextOnSubjects(after),
      (err) => this.warnOncePerMinute(err),
    )
  }

  /** Called with every event this view applies, once applied. */
  onApplied(listener: (event: RecordedEvent) => void): void {
    this.listeners.push(listener)
  }

  /**
   * The document as of stream sequence `fence` at least (null when it has no event yet);
   * after `timeoutMs` without reaching the fence, as far as the view got (`caughtUp` false).
   */
  async get(id: string, fence: number, timeoutMs: number): Promise<{ doc: Stored<Doc> | null; caughtUp: boolean }> {
    await this.start()
    const entry = this.entries.get(id) ?? this.load(id)
    await entry.loaded
    const reached = (entry.doc?._seq ?? 0) >= fence || (await this.position.wait(fence, timeoutMs))
    // A view that started over meanwhile dropped this entry: what it holds may miss what the old consumer never delivered.
    return { doc: entry.doc, caughtUp: reached && this.entries.get(id) === entry }
  }

  /** The document as held now: undefined when not held (not asked for yet, or forgotten), null when it has no event yet. */
  current(id: string): Stored<Doc> | null | undefined {
    const entry = this.entries.get(id)
    return entry && entry.pending === null ? entry.doc : undefined
  }

  stop(): void {
    this.stopped = true
    void this.messages?.close()
    this.position.abandon()
  }

  private start(): Promise<void> {
    // A failed start (NATS away) is not remembered: the next call tries again.
    this.started ??= this.follow().catch((err: unknown) => {
      this.started = undefined
      throw err
    })
    return this.started
  }

  /** Opens the tail at the stream's end, on the projection's events only; documents are loaded from the read model and the log on demand. */
  private async follow(): Promise<void> {
    const { state } = await this.deps.jsm.streams.info(this.projection.stream)
    const consumer = await this.deps.js.consumers.get(this.projection.stream, {
      name_prefix: orderedConsumerPrefix(`${LIVE_VIEW_CONSUMER_PREFIX}${this.projection.name}_`),
      filter_subjects: [...this.subjects],
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: state.last_seq + 1,
    })
    this.messages = await consumeFollowing(consumer, 512, this.deps.link)
    if (this.stopped) void this.messages.close()
    this.position.read(state.last_seq)
    void this.drain(consumer, this.messages)
  }

  private async drain(consumer: Consumer, messages: ConsumerMessages): Promise<void> {
    try {
      for await (const msg of messages) {
        this.receive(msg)
        this.position.read(msg.seq)
      }
    } catch (err) {
      this.deps.log[endLevel(err)]({ err, projection: this.projection.name }, 'live view lost its consumer; restarting')
    }
    await closeOrdered(consumer, messages)
    if (this.stopped) return
    // A view that stopped following may be behind: forget it all and start over, from the stream's end.
    this.position.abandon()
    this.entries.clear()
    this.started = undefined
    await new Promise((r) => setTimeout(r, RESTART_DELAY_MS))
    if (!this.stopped) void this.start().catch((err: unknown) => this.deps.log.error({ err }, 'live view could not restart'))
  }

  /** A message that is not an event is recorded and passed over; see poison-messages.ts. */
  private receive(msg: JsMsg): void {
    const event = tryDecodeEvent(msg)
    if (event instanceof UndecodableMessageError) {
      const poison = { stream: this.projection.stream, seq: msg.seq, subject: msg.subject, reason: event.reason }
      void new PoisonMessages(this.deps.readModels.db, this.deps.log).record(poison, `live-view:${this.projection.name}`)
      return
    }
    this.deliver(event)
  }

  private deliver(event: RecordedEvent): void {
    const entry = this.entries.get(this.projection.docId(event))
    if (!entry) return
    if (entry.pending) return void entry.pending.push(event)
    try {
      this.apply(entry, [event])
    } catch (err) {
      if (!(err instanceof EventNotAppliedError)) throw err
      // Only this document is wrong: forget it, so that asking for it fails (loading applies the event again) and the others go on.
      this.entries.delete(entry.id)
      this.deps.log.error({ err, projection: this.projection.name }, 'live view cannot apply an event; the document is unavailable until the projection is fixed')
    }
  }

  private apply(entry: Entry<Doc>, events: readonly RecordedEvent[]): void {
    for (const event of events) {
      const before = entry.doc?._seq ?? 0
      entry.doc = foldOnto<Doc>(this.projection, entry.id, entry.doc, [event])
      if ((entry.doc?._seq ?? 0) > before) for (const listener of this.listeners) listener(event)
    }
  }

  private load(id: string): Entry<Doc> {
    const entry: Entry<Doc> = { id, doc: null, pending: [], loaded: Promise.resolve() }
    this.entries.set(id, entry)
    entry.loaded = (async () => {
      try {
        const stored = await this.deps.readModels.collection<Doc>(this.projection).findOne({ _id: id } as never)
        entry.doc = stored as Stored<Doc> | null
        this.apply(entry, await this.source.eventsAfter(id, entry.doc?._seq ?? 0))
        this.apply(entry, entry.pending ?? [])
        entry.pending = null
      } catch (err) {
        this.entries.delete(id)
        throw err
      }
    })()
    return entry
  }

  /** The first message after `after` on the view's subjects, from the stream's leader (consistent with the fences it gives). */
  private async nextOnSubjects(after: number): Promise<number> {
    const found = await Promise.all(
      this.subjects.map((subject) => {
        const query: SeqMsgRequest & { next_by_subj: string } = { seq: after + 1, next_by_subj: subject }
        return this.deps.jsm.streams.getMessage(this.projection.stream, query)
      }),
    )
    return Math.min(...found.map((msg) => msg?.seq ?? Number.POSITIVE_INFINITY))
  }

  /** A failing question is logged, not once per check: each check then answers as a view that is behind (503). */
  private warnOncePerMinute(err: unknown): void {
    if (performance.now() - this.warnedAt < 60_000) return
    this.warnedAt = performance.now()
    this.deps.log.warn({ err, projection: this.projection.name }, 'live view could not ask the stream what follows what it has read; checks wait for their events')
  }
}

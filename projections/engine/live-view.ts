import { DeliverPolicy, type Consumer, type ConsumerMessages, type JetStreamClient, type JetStreamManager, type JsMsg } from '@nats-io/jetstream'
import type { Logger } from 'pino'
import type { RecordedEvent } from '../../src/domain/message.js'
import { PoisonMessages } from '../../src/infra/mongo/poison-messages.js'
import { tryDecodeEvent, UndecodableMessageError } from '../../src/infra/nats/decode.js'
import type { NatsLink } from '../../src/infra/nats/link.js'
import { closeOrdered, consumeFollowing, endLevel } from '../../src/infra/nats/ordered-consumers.js'
import { EventNotAppliedError, foldOnto, handles, type Projection, type Stored } from './projection.js'
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

/**
 * One projection's documents kept in this process's memory, for the documents it is asked
 * for: each starts from its read-model document plus the log events the read model has
 * not applied yet, then follows the stream as events are stored. Where the read model may
 * lag behind the log, this answers as of a stream position the caller names (`fence`),
 * at the cost of one ordered consumer per process. The same `evolve` folds both.
 */
export class LiveView<Doc extends { _id: string }> {
  private readonly entries = new Map<string, Entry<Doc>>()
  private readonly waiters = new Set<{ seq: number; done: () => void }>()
  private readonly listeners: ((event: RecordedEvent) => void)[] = []
  private messages: ConsumerMessages | undefined
  private started: Promise<void> | undefined
  private stopped = false
  /** The last stream sequence this view has seen (every event of the stream moves it). */
  private position = 0

  constructor(
    private readonly deps: LiveViewDeps,
    private readonly projection: Projection,
    private readonly source: LiveViewSource,
  ) {}

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
    const caughtUp = this.position >= fence || (entry.doc?._seq ?? 0) >= fence || (await this.reach(fence, timeoutMs))
    return { doc: entry.doc, caughtUp }
  }

  /** The document as held now: undefined when not held (not asked for yet, or forgotten), null when it has no event yet. */
  current(id: string): Stored<Doc> | null | undefined {
    const entry = this.entries.get(id)
    return entry && entry.pending === null ? entry.doc : undefined
  }

  stop(): void {
    this.stopped = true
    void this.messages?.close()
    for (const waiter of this.waiters) waiter.done()
  }

  private start(): Promise<void> {
    // A failed start (NATS away) is not remembered: the next call tries again.
    this.started ??= this.follow().catch((err: unknown) => {
      this.started = undefined
      throw err
    })
    return this.started
  }

  /** Opens the tail at the stream's end; documents are loaded from the read model and the log on demand. */
  private async follow(): Promise<void> {
    const { state } = await this.deps.jsm.streams.info(this.projection.stream)
    const consumer = await this.deps.js.consumers.get(this.projection.stream, { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: state.last_seq + 1 })
    this.messages = await consumeFollowing(consumer, 512, this.deps.link)
    this.advance(state.last_seq)
    void this.drain(consumer, this.messages)
  }

  private async drain(consumer: Consumer, messages: ConsumerMessages): Promise<void> {
    try {
      for await (const msg of messages) {
        const type = msg.subject.slice(msg.subject.lastIndexOf('.') + 1)
        if (handles(this.projection, type)) this.receive(msg)
        this.advance(msg.seq)
      }
    } catch (err) {
      this.deps.log[endLevel(err)]({ err, projection: this.projection.name }, 'live view lost its consumer; restarting')
    }
    await closeOrdered(consumer, messages)
    if (this.stopped) return
    // A view that stopped following may be behind: forget it all and start over.
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

  private advance(seq: number): void {
    if (seq <= this.position) return
    this.position = seq
    for (const waiter of this.waiters) if (waiter.seq <= seq) waiter.done()
  }

  private reach(seq: number, timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const waiter = {
        seq,
        done: () => {
          clearTimeout(timer)
          this.waiters.delete(waiter)
          resolve(this.position >= seq)
        },
      }
      const timer = setTimeout(waiter.done, timeoutMs)
      this.waiters.add(waiter)
    })
  }
}

import type { Infra } from '../infra/context.js'
import { Inbox } from './inbox.js'
import { LiveRoutes } from './live-routes.js'
import { Tap } from './live-tap.js'
import { ConsumerSilentError } from '../infra/nats/ordered-consumers.js'

/** Events one open feed or wait may have waiting before it is ended as too slow (a stream's client resumes with Last-Event-ID). */
export const LIVE_INBOX_LIMIT = 1000

/** One feed's or wait's place in the hub: its inbox of live events, and `release` (idempotent) once done. */
export interface LiveSubscription {
  readonly inbox: Inbox
  release(): void
}

export interface LiveEventHubOptions {
  readonly inboxLimit: number
  /** How long the shared consumer outlives its last subscriber, so that one wait after another reuses it. */
  readonly idleMs: number
}

/**
 * One ordered JetStream consumer per API process, shared by every live reader of task events:
 * the account feeds (GET /v1/events), the per-task feeds (GET /v1/tasks/{id}/events) and the
 * waits (waitSeconds, cancel), fanned out in process by account and task (ADR 0036, ADR 0040).
 * No reader holds anything on the server: the history each one needs comes from the log by
 * direct gets. The consumer starts with the first subscriber, at the end of the stream, and is
 * deleted `idleMs` after the last one leaves. Fan-out never waits for a reader: an inbox that
 * fills up ends its reader alone, so one slow client never delays another (invariant 12).
 */
export class LiveEventHub {
  private readonly routes = new LiveRoutes()
  private running: Promise<Tap> | null = null
  private idle: NodeJS.Timeout | null = null
  private closed = false

  constructor(
    private readonly infra: Pick<Infra, 'js' | 'jsm' | 'link' | 'log'>,
    private readonly options: LiveEventHubOptions,
  ) {}

  /**
   * An inbox of the account's task events (or of task `taskId`'s alone) from now on: every
   * event the log stores after this resolves reaches it, in stream order. Throws
   * EventStoreUnavailableError (503) when NATS is away and the consumer is not running.
   */
  async subscribe(accountId: string, taskId: string | null = null): Promise<LiveSubscription> {
    const inbox = new Inbox(this.options.inboxLimit)
    const remove = this.routes.add(accountId, taskId, inbox)
    const subscription = { inbox, release: () => remove() && this.afterRelease() }
    this.cancelIdle()
    if (this.closed) {
      // The process is stopping: nothing new starts; the reader ends at once.
      inbox.end(new Error('the API process is stopping'))
      return subscription
    }
    try {
      this.running ??= this.start()
      await this.running
      return subscription
    } catch (err) {
      subscription.release()
      throw err
    }
  }

  /** Feeds and waits registered now (tests, metrics). */
  get size(): number {
    return this.routes.size
  }

  /** Whether the shared consumer runs (or is starting) now. */
  get consuming(): boolean {
    return this.running !== null
  }

  /** Deletes the consumer now and ends every reader (the process stops). */
  async close(): Promise<void> {
    this.closed = true
    this.cancelIdle()
    this.routes.endAll(new Error('the API process is stopping'))
    await this.stop()
  }

  private start(from?: number): Promise<Tap> {
    const starting = Tap.open(
      this.infra,
      (accountId, taskId, event) => this.routes.deliver(accountId, taskId, event),
      (err, next) => this.fail(starting, err, next),
      from,
    )
    // A start that failed (NATS away) must not stay the answer for every later subscriber.
    starting.catch(() => {
      if (this.running === starting) this.running = null
    })
    return starting
  }

  private afterRelease(): void {
    if (this.routes.size > 0 || this.idle) return
    this.idle = setTimeout(() => {
      this.idle = null
      if (this.routes.size === 0) void this.stop()
    }, this.options.idleMs)
    this.idle.unref()
  }

  private cancelIdle(): void {
    if (this.idle) clearTimeout(this.idle)
    this.idle = null
  }

  private async stop(): Promise<void> {
    const running = this.running
    this.running = null
    await running?.then((tap) => tap.close()).catch(() => undefined)
  }

  /**
   * The shared consumer ended on its own. Its server gone (a node lost, a reconnection): a new
   * one follows on from the event after the last handed over, and the readers miss nothing.
   * Otherwise (stream gone, NATS away for good), or if the new one cannot open, every reader
   * ends; stream clients resume.
   */
  private fail(tap: Promise<Tap>, err: unknown, next: number): void {
    if (this.running !== tap) return
    this.running = null
    void tap.then((t) => t.close()).catch(() => undefined)
    if (err instanceof ConsumerSilentError && !this.closed) {
      this.infra.log.warn({ err, next }, 'the live event consumer lost its server; following again from where it was')
      const resumed = this.start(next)
      this.running = resumed
      return void resumed.catch(() => this.endAll(err))
    }
    this.endAll(err)
  }

  private endAll(err: unknown): void {
    this.infra.log.warn({ err }, 'the live event consumer ended; open feeds and waits end, stream clients resume')
    this.routes.endAll(new Error('the live event feed was interrupted'))
  }
}

import { randomUUID } from 'node:crypto'
import type { Consumer, ConsumerMessages } from '@nats-io/jetstream'
import type { RecordedEvent } from '../domain/message.js'
import type { Infra } from '../infra/context.js'
import { tryDecodeEvent, UndecodableMessageError } from '../infra/nats/decode.js'
import { closeOrdered } from '../infra/nats/ordered-consumers.js'
import { SUBJECT_ROOT, streamOf } from '../infra/nats/subjects.js'
import { Inbox } from './inbox.js'

/** The names of the hub's consumers begin with this: one per API process while a feed is open. */
export const ACCOUNT_FEED_CONSUMER_PREFIX = 'account_events_'
/** Every task event of every account: the hub routes each to the inboxes of its account. */
const ALL_TASK_EVENTS = `${SUBJECT_ROOT}.task.>`

/**
 * One ordered JetStream consumer per API process, shared by every open account feed
 * (GET /v1/events) and fanned out by account to their inboxes (ADR 0036). It exists while at
 * least one feed is open: the first subscriber starts it at the end of the stream, the last one
 * to leave deletes it. Fan-out never waits for a reader: an inbox that fills up ends its feed
 * (the client resumes with Last-Event-ID), so one slow client never delays another.
 */
export class AccountEventHub {
  private readonly inboxes = new Map<string, Set<Inbox>>()
  private subscribers = 0
  private running: Promise<Tap> | null = null

  constructor(
    private readonly infra: Infra,
    private readonly inboxLimit: number,
  ) {}

  /** An inbox of the account's task events from now on; the hub runs once this resolves. Call `release` when done. */
  async subscribe(accountId: string): Promise<Inbox> {
    const inbox = new Inbox(this.inboxLimit)
    const ofAccount = this.inboxes.get(accountId) ?? new Set()
    ofAccount.add(inbox)
    this.inboxes.set(accountId, ofAccount)
    this.subscribers++
    try {
      this.running ??= this.start()
      await this.running
      return inbox
    } catch (err) {
      this.release(accountId, inbox)
      throw err
    }
  }

  release(accountId: string, inbox: Inbox): void {
    const ofAccount = this.inboxes.get(accountId)
    if (!ofAccount?.delete(inbox)) return
    if (ofAccount.size === 0) this.inboxes.delete(accountId)
    if (--this.subscribers === 0) this.stop()
  }

  /** How many feeds it serves now (tests, metrics). */
  get size(): number {
    return this.subscribers
  }

  private async start(): Promise<Tap> {
    const tap = await Tap.open(
      this.infra,
      (accountId, event) => this.route(accountId, event),
      (err) => this.fail(tap, err),
    )
    return tap
  }

  private stop(): void {
    const running = this.running
    this.running = null
    void running?.then((tap) => tap.close()).catch(() => undefined)
  }

  /** The shared consumer ended on its own (stream gone, NATS away for good): every feed ends, clients resume. */
  private fail(tap: Tap, err: unknown): void {
    void this.running?.then((current) => {
      if (current !== tap) return
      void tap.close()
      this.infra.log.warn({ err }, 'the account event feed consumer ended; open feeds end and their clients resume')
      this.running = null
      for (const ofAccount of this.inboxes.values()) for (const inbox of ofAccount) inbox.end(new Error('the account event feed was interrupted'))
    })
  }

  private route(accountId: string, event: () => RecordedEvent | null): void {
    const ofAccount = this.inboxes.get(accountId)
    if (!ofAccount) return
    const decoded = event()
    if (decoded) for (const inbox of ofAccount) inbox.push(decoded)
  }
}

/** The consumer itself: every stored task event from the end of the stream at its start, in order. */
class Tap {
  private closed = false

  private constructor(
    private readonly consumer: Consumer,
    private readonly messages: ConsumerMessages,
  ) {}

  static async open(infra: Infra, route: (accountId: string, event: () => RecordedEvent | null) => void, onEnd: (err: unknown) => void): Promise<Tap> {
    infra.link.assertUp()
    const stream = streamOf('task')
    const { state } = await infra.jsm.streams.info(stream)
    const consumer = await infra.js.consumers.get(stream, {
      name_prefix: `${ACCOUNT_FEED_CONSUMER_PREFIX}${randomUUID().replaceAll('-', '')}`,
      filter_subjects: [ALL_TASK_EVENTS],
      opt_start_seq: state.last_seq + 1,
    })
    const messages = await consumer.consume({ max_messages: 256 })
    const tap = new Tap(consumer, messages)
    void tap.pump(route, onEnd)
    return tap
  }

  async close(): Promise<void> {
    this.closed = true
    await closeOrdered(this.consumer, this.messages)
  }

  private async pump(route: (accountId: string, event: () => RecordedEvent | null) => void, onEnd: (err: unknown) => void): Promise<void> {
    try {
      for await (const msg of this.messages) {
        // `mats.task.<accountId>.<taskId>.<type>`: only events of an account with an open feed are decoded.
        const accountId = msg.subject.split('.')[2] ?? ''
        route(accountId, () => {
          const event = tryDecodeEvent(msg)
          return event instanceof UndecodableMessageError ? null : event
        })
      }
      if (!this.closed) onEnd(new Error('the consumer stopped delivering'))
    } catch (err) {
      if (!this.closed) onEnd(err)
    }
  }
}

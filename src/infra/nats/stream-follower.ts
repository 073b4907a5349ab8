import { setTimeout as sleep } from 'node:timers/promises'
import { DeliverPolicy, type Consumer, type ConsumerMessages, type JetStreamClient, type JetStreamManager, type JsMsg } from '@nats-io/jetstream'
import type { Logger } from 'pino'
import { settleWithin } from '../deadline.js'
import type { NatsLink } from './link.js'
import { closeOrdered, consumeFollowing, orderedConsumerPrefix } from './ordered-consumers.js'

const STOP_MS = 2000
const REOPEN_MS = 1000

/** What a follower reads through: JetStream, and the connection's link (a reconnection ends its consumer). */
export interface FollowingNats {
  readonly js: JetStreamClient
  readonly jsm: JetStreamManager
  readonly link: Pick<NatsLink, 'onReconnect'>
}

/** What opening a consumer needs: no stream info, the start being given. */
type OpeningNats = Omit<FollowingNats, 'jsm'>

export interface FollowedSubjects {
  readonly stream: string
  readonly filterSubjects: readonly string[]
  /** The consumer's name begins with this, so that operators can tell whose it is. */
  readonly namePrefix: string
  /** Only the subject and headers are needed (a doorbell), not the event. */
  readonly headersOnly?: boolean
  /** What the warnings call this follower, e.g. "cancellations". */
  readonly name: string
}

/**
 * Reads the messages stored on some subjects from the stream's head at `listen()` on, through
 * an ordered consumer, until stopped. From a sequence, not "new": an ordered consumer that
 * resets (missed heartbeats, a reconnect) starts again after the last message it read, one that
 * gives up (NATS away for long) is replaced by one starting there, and one that has read
 * nothing would otherwise start from the stream's first message and replay all of it.
 */
export class StreamFollower {
  private consumer: Consumer | undefined
  private messages: ConsumerMessages | undefined
  private stopping = false

  constructor(
    private readonly subjects: FollowedSubjects,
    private readonly onMessage: (msg: JsMsg) => void,
    private readonly log: Logger,
  ) {}

  /** Follows what is stored from now on (the stream's head). */
  async listen(nats: FollowingNats): Promise<void> {
    const { state } = await nats.jsm.streams.info(this.subjects.stream)
    await this.open(nats, state.last_seq + 1)
  }

  /** Follows what is stored from stream sequence `from` on (at least 1): the messages already there, then the new ones. */
  async listenFrom(nats: OpeningNats, from: number): Promise<void> {
    await this.open(nats, Math.max(1, from))
  }

  /** Deletes the consumer; with NATS away, it is left to the server's inactive threshold after STOP_MS. */
  async stop(): Promise<void> {
    this.stopping = true
    if (this.consumer) await settleWithin(closeOrdered(this.consumer, this.messages), STOP_MS)
  }

  private async open(nats: OpeningNats, from: number): Promise<void> {
    const consumer = await nats.js.consumers.get(this.subjects.stream, {
      name_prefix: orderedConsumerPrefix(this.subjects.namePrefix),
      filter_subjects: [...this.subjects.filterSubjects],
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: from,
      ...(this.subjects.headersOnly ? { headers_only: true } : {}),
    })
    this.consumer = consumer
    this.messages = await consumeFollowing(consumer, 100, nats.link)
    void this.follow(nats, consumer, this.messages, from)
  }

  private async follow(nats: OpeningNats, consumer: Consumer, messages: ConsumerMessages, from: number): Promise<void> {
    let next = from
    try {
      for await (const msg of messages) {
        next = msg.seq + 1
        this.onMessage(msg)
      }
    } catch (err) {
      this.log.warn({ err }, `${this.subjects.name}: the consumer failed; following again`)
    }
    await settleWithin(closeOrdered(consumer, messages), STOP_MS)
    while (!this.stopping) {
      await sleep(REOPEN_MS)
      if (this.stopping) return
      try {
        return await this.open(nats, next)
      } catch (err) {
        this.log.warn({ err }, `${this.subjects.name}: could not follow again yet`)
      }
    }
  }
}

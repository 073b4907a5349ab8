import type { Consumer, ConsumerMessages, JetStreamManager } from '@nats-io/jetstream'
import type { RecordedEvent } from '../domain/message.js'
import type { Infra } from '../infra/context.js'
import { tryDecodeEvent, UndecodableMessageError } from '../infra/nats/decode.js'
import { closeOrdered, consumeFollowing, orderedConsumerPrefix } from '../infra/nats/ordered-consumers.js'
import { ACCOUNT_FEED_CATEGORIES } from '../domain/events/account-feed.js'
import { eventSubjectParts, SUBJECT_ROOT, streamOf } from '../infra/nats/subjects.js'

/** The names of the shared consumers begin with this: at most one per API process, while something follows live events. */
export const LIVE_EVENTS_CONSUMER_PREFIX = 'live_events_'

/** The shared live-event consumers on the server now: what an operator (or a check) counts to see that waiting clients cost none of their own. */
export async function liveEventConsumers(jsm: JetStreamManager): Promise<string[]> {
  const names: string[] = []
  for await (const info of jsm.consumers.list('MATS_TASKS')) if (info.name.startsWith(LIVE_EVENTS_CONSUMER_PREFIX)) names.push(info.name)
  return names
}
/** Every task and schedule event of every account: the hub routes each to the inboxes of its account (and task). */
const FEED_SUBJECTS = ACCOUNT_FEED_CATEGORIES.map((category) => `${SUBJECT_ROOT}.${category}.>`)

/** Where the tap hands each event: its account and task (null for a schedule's event) read from the subject, `event` decodes it on demand. */
export type Route = (accountId: string, taskId: string | null, event: () => RecordedEvent | null) => void

/** A tap's consumer ended on its own, `next` being the sequence after the last event it handed over. */
export type TapEnded = (err: unknown, next: number) => void

/**
 * The one ordered JetStream consumer of a LiveEventHub: every stored task and schedule event from the end
 * of the stream at its start, in stream order (only stored events, unlike a core subscription;
 * gaps recovered by the ordered consumer itself).
 */
export class Tap {
  private closed = false

  private constructor(
    private readonly consumer: Consumer,
    private readonly messages: ConsumerMessages,
    /** The stream sequence after the last event handed over: a tap opened there misses nothing. */
    private next: number,
  ) {}

  /** From the stream's end, or from sequence `from` (a tap following on from one that ended). `onEnd` is told where this one stopped. */
  static async open(infra: Pick<Infra, 'js' | 'jsm' | 'link'>, route: Route, onEnd: TapEnded, from?: number): Promise<Tap> {
    infra.link.assertUp()
    const stream = streamOf('task')
    const start = from ?? (await infra.jsm.streams.info(stream)).state.last_seq + 1
    const consumer = await infra.js.consumers.get(stream, {
      name_prefix: orderedConsumerPrefix(LIVE_EVENTS_CONSUMER_PREFIX),
      filter_subjects: FEED_SUBJECTS,
      opt_start_seq: start,
    })
    const messages = await consumeFollowing(consumer, 256, infra.link)
    const tap = new Tap(consumer, messages, start)
    void tap.pump(route, onEnd)
    return tap
  }

  async close(): Promise<void> {
    this.closed = true
    await closeOrdered(this.consumer, this.messages)
  }

  private async pump(route: Route, onEnd: TapEnded): Promise<void> {
    try {
      for await (const msg of this.messages) {
        this.next = msg.seq + 1
        // `mats.<task|schedule>.<accountId>.<id>.<type>`: only events someone follows are decoded.
        const { category, accountId, aggregateId } = eventSubjectParts(msg.subject)
        route(accountId, category === 'task' ? aggregateId : null, () => {
          const event = tryDecodeEvent(msg)
          return event instanceof UndecodableMessageError ? null : event
        })
      }
      if (!this.closed) onEnd(new Error('the consumer stopped delivering'), this.next)
    } catch (err) {
      if (!this.closed) onEnd(err, this.next)
    }
  }
}

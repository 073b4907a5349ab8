import type { JsMsg } from '@nats-io/jetstream'
import type { Logger } from 'pino'
import type { Recorded } from '../../src/domain/message.js'
import type { TaskCreated } from '../../src/domain/tasks/task.js'
import type { AppContext } from '../../src/app-context.js'
import { PoisonMessages } from '../../src/infra/mongo/poison-messages.js'
import { tryDecodeEvent, UndecodableMessageError } from '../../src/infra/nats/decode.js'
import { DISPATCH_STREAM } from '../../src/infra/nats/dispatch-stream.js'

/** Where a delivered TaskCreated is stored in the log: what a claim's guard and a poison record name. */
export interface LogOrigin {
  readonly stream: string
  readonly seq: number
  readonly subject: string
}

/** What of a delivered message tells where the log has it. */
export type Delivery = Pick<JsMsg, 'seq' | 'subject' | 'headers'> & { readonly info: Pick<JsMsg['info'], 'stream'> }

/**
 * The log's message a delivery is: itself when read from the task stream, or, from the
 * dispatch stream (ADR 0052), the one its `Nats-Stream-Source` header names. nats-server
 * 2.10–2.14 write `<stream> <seq> <filter> <transform> <subject>` (`>` for no filter or no
 * transform); 2.15+ add the source's identity after the subject (another for a stream made
 * again). Null when a dispatch message
 * lacks it (not sourced by the server: someone published it by hand).
 */
export function logOrigin(msg: Delivery): LogOrigin | null {
  if (msg.info.stream !== DISPATCH_STREAM) return { stream: msg.info.stream, seq: msg.seq, subject: msg.subject }
  const [stream = '', seqText, , , subject] = msg.headers?.get('Nats-Stream-Source').split(' ') ?? []
  const seq = Number(seqText)
  if (!Number.isSafeInteger(seq) || seq < 1 || !subject) return null
  return { stream: stream.split(':')[0] ?? '', seq, subject }
}

/**
 * The TaskCreated a delivered message holds, with where the log has it, or null when it holds
 * no event. Such a message would fail the same way on every redelivery (the worker's
 * consumers redeliver without limit), so it is terminated (`term`: never delivered again),
 * logged and recorded under the log's stream and sequence.
 */
export function deliveredTask(msg: JsMsg, infra: AppContext, log: Logger): { event: Recorded<TaskCreated>; origin: LogOrigin } | null {
  const origin = logOrigin(msg)
  const event = origin
    ? tryDecodeEvent({ subject: origin.subject, seq: origin.seq, data: msg.data })
    : new UndecodableMessageError(msg.subject, msg.seq, 'a dispatch message without its Nats-Stream-Source')
  if (origin && !(event instanceof UndecodableMessageError)) return { event: event as unknown as Recorded<TaskCreated>, origin }
  const reason = event instanceof UndecodableMessageError ? event.reason : 'not an event'
  msg.term(reason)
  const poison = { ...(origin ?? { stream: msg.info.stream, seq: msg.seq, subject: msg.subject }), reason }
  void new PoisonMessages(infra.db, log).record(poison, 'worker')
  return null
}

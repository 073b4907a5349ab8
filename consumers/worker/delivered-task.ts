import type { JsMsg } from '@nats-io/jetstream'
import type { Logger } from 'pino'
import type { Recorded } from '../../src/domain/message.js'
import type { TaskCreated } from '../../src/domain/tasks/task.js'
import type { AppContext } from '../../src/app-context.js'
import { PoisonMessages } from '../../src/infra/mongo/poison-messages.js'
import { tryDecodeEvent, UndecodableMessageError } from '../../src/infra/nats/decode.js'

/**
 * The TaskCreated a delivered message holds, or null when it holds no event. Such a message
 * would fail the same way on every redelivery (the worker's consumer redelivers without
 * limit), so it is terminated (`term`: never delivered again), logged and recorded.
 */
export function deliveredTask(msg: JsMsg, infra: AppContext, log: Logger): Recorded<TaskCreated> | null {
  const event = tryDecodeEvent(msg)
  if (!(event instanceof UndecodableMessageError)) return event as unknown as Recorded<TaskCreated>
  msg.term(event.reason)
  const poison = { stream: msg.info.stream, seq: msg.seq, subject: msg.subject, reason: event.reason }
  void new PoisonMessages(infra.db, log).record(poison, 'worker')
  return null
}

import { DeliverPolicy, type ConsumerMessages } from '@nats-io/jetstream'
import { taskDocFromHistory, type TaskDoc } from '../../projections/index.js'
import type { Recorded, RecordedEvent } from '../domain/message.js'
import type { TaskEvent } from '../domain/tasks/task.js'
import type { Infra } from '../infra/context.js'
import { tryDecodeEvent, UndecodableMessageError } from '../infra/nats/decode.js'
import { closeOrdered } from '../infra/nats/ordered-consumers.js'
import { aggregateSubjects, streamOf } from '../infra/nats/subjects.js'
import { endsTask } from '../domain/tasks/task.js'

/**
 * Holds until a task ends, `timeoutMs` passes or `signal` aborts, and returns it as it stands then. It
 * reads the task's events through an ordered JetStream consumer, so it sees only what
 * the log stored (a core subscription also sees rejected publishes, and may see an event
 * before it is stored). A GET that follows never shows an older state than this answer:
 * readTask checks the read model against the log.
 *
 * The consumer is deleted when the wait ends: closing it alone leaves it on the server for
 * 5 minutes (one per wait). A core subscription would create nothing on the server, but
 * each event it saw would have to be confirmed in the log (re-read, and retried while a
 * replica has not stored it yet): one delete per wait is simpler and as exact.
 */
export async function awaitTaskEnd(infra: Infra, accountId: string, taskId: string, timeoutMs: number, signal?: AbortSignal): Promise<TaskDoc | null> {
  const consumer = await infra.js.consumers.get(streamOf('task'), {
    filter_subjects: [aggregateSubjects('task', accountId, taskId)],
    deliver_policy: DeliverPolicy.All,
  })
  const events: Recorded<TaskEvent>[] = []
  let messages: ConsumerMessages | undefined
  try {
    messages = await consumer.consume({ max_messages: 16 })
    for await (const event of eventsUntil(messages, timeoutMs, signal)) {
      events.push(event as unknown as Recorded<TaskEvent>)
      if (endsTask(event.type)) break
    }
  } finally {
    await closeOrdered(consumer, messages)
  }
  return taskDocFromHistory(events)
}

/** The events among `messages` until `timeoutMs` passes or `signal` aborts. */
async function* eventsUntil(messages: ConsumerMessages, timeoutMs: number, signal?: AbortSignal): AsyncGenerator<RecordedEvent> {
  const stop = (): void => void messages.close()
  const timer = setTimeout(stop, timeoutMs)
  signal?.addEventListener('abort', stop, { once: true })
  // An abort listener added to a signal that has already aborted is never called: a signal
  // aborted while the consumer was being created (seconds, on a loaded machine) would have
  // been missed, and the wait held for all of timeoutMs (a cancelled supervisor kept waiting
  // on a delegated task another run held, for the whole run time limit).
  if (signal?.aborted) stop()
  try {
    for await (const msg of messages) {
      // A message that is not an event is the projectors' to record; the task's state is in its events.
      const event = tryDecodeEvent(msg)
      if (!(event instanceof UndecodableMessageError)) yield event
    }
  } finally {
    clearTimeout(timer)
    signal?.removeEventListener('abort', stop)
  }
}

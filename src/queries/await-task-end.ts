import { DeliverPolicy } from '@nats-io/jetstream'
import { taskDocFromHistory, type TaskDoc } from '../../projections/index.js'
import type { Recorded } from '../domain/message.js'
import type { TaskEvent } from '../domain/tasks/task.js'
import type { Infra } from '../infra/context.js'
import { decodeEvent } from '../infra/nats/event-store.js'
import { aggregateSubjects, streamOf } from '../infra/nats/subjects.js'

const TERMINAL = new Set(['TaskCompleted', 'TaskFailed'])

/**
 * Holds until a task ends, `timeoutMs` passes or `signal` aborts, and returns it as it stands then. It
 * reads the task's events through an ordered JetStream consumer, so it sees only what
 * the log stored (a core subscription also sees rejected publishes, and may see an event
 * before it is stored). A GET that follows never shows an older state than this answer:
 * readTask checks the read model against the log.
 */
export async function awaitTaskEnd(infra: Infra, accountId: string, taskId: string, timeoutMs: number, signal?: AbortSignal): Promise<TaskDoc | null> {
  const consumer = await infra.js.consumers.get(streamOf('task'), {
    filter_subjects: [aggregateSubjects('task', accountId, taskId)],
    deliver_policy: DeliverPolicy.All,
  })
  const messages = await consumer.consume({ max_messages: 16 })
  const stop = (): void => void messages.close()
  const timer = setTimeout(stop, timeoutMs)
  signal?.addEventListener('abort', stop, { once: true })
  const events: Recorded<TaskEvent>[] = []
  try {
    for await (const msg of messages) {
      const event = decodeEvent(msg) as unknown as Recorded<TaskEvent>
      events.push(event)
      if (TERMINAL.has(event.type)) break
    }
  } finally {
    clearTimeout(timer)
    signal?.removeEventListener('abort', stop)
    await messages.close()
  }
  return taskDocFromHistory(events)
}

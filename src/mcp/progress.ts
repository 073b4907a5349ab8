import type { NatsConnection } from '@nats-io/transport-node'
import type { EventMetadata } from '../domain/message.js'
import { aggregateSubjects, eventSubjectParts } from '../infra/nats/subjects.js'
import { isTerminal } from '../domain/tasks/task.js'

/** Sends one `notifications/progress` for the current request; never throws. */
export interface Progress {
  report(progress: number, total: number, message: string): Promise<void>
}

const REPORT_EVERY_MS = 5_000
const STATUS_OF_EVENT: Record<string, string> = { TaskCreated: 'pending', TaskStarted: 'running', TaskCompleted: 'completed', TaskFailed: 'failed' }

/**
 * Reports progress while `runAgentTask` holds a call for `waitSeconds`: at each event of
 * the task (queued, started, ended) and every few seconds in between, with the seconds
 * waited as progress and `waitSeconds` as total.
 *
 * `runAgentTask` picks the task id itself, so the follower listens to all task events of
 * the account, subscribed before the task is created (no event can slip past), and
 * recognises the call's own task by the correlation id (unique per tool call) on its
 * TaskCreated.
 */
export function reportTaskProgress(nc: NatsConnection, accountId: string, correlationId: string, waitSeconds: number, progress: Progress): { close(): void } {
  const startedAt = Date.now()
  let taskId: string | null = null
  let status = 'being created'
  let last = 0

  const send = () => {
    const ended = isTerminal(status)
    const waited = Math.round((Date.now() - startedAt) / 100) / 10
    // Progress must increase with every notification (MCP spec); an ended task is 100 %.
    last = Math.round(Math.max(ended ? waitSeconds : waited, last + 0.1) * 10) / 10
    const task = taskId ? `task ${taskId}` : 'task'
    void progress.report(last, waitSeconds, `${task} ${status}, ${waited} s waited of at most ${waitSeconds} s`)
  }

  const timer = setInterval(send, REPORT_EVERY_MS)
  const subscription = nc.subscribe(aggregateSubjects('task', accountId, '*'), {
    callback: (err, msg) => {
      if (err) return
      const { aggregateId, type } = eventSubjectParts(msg.subject)
      if (taskId === null && type === 'TaskCreated' && isCreatedByThisCall(msg.string(), correlationId)) taskId = aggregateId
      if (taskId === null || aggregateId !== taskId || !STATUS_OF_EVENT[type]) return
      status = STATUS_OF_EVENT[type]
      send()
      if (isTerminal(status)) clearInterval(timer)
    },
  })
  return {
    close() {
      clearInterval(timer)
      subscription.unsubscribe()
    },
  }
}

function isCreatedByThisCall(envelopeJson: string, correlationId: string): boolean {
  try {
    const { metadata } = JSON.parse(envelopeJson) as { metadata?: Partial<EventMetadata> }
    return metadata?.correlationId === correlationId
  } catch {
    return false
  }
}

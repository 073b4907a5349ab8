import { randomUUID } from 'node:crypto'
import type { AppContext } from '../../src/app-context.js'
import { Task, type TaskEvent } from '../../src/domain/tasks/task.js'
import { endedTaskDrafts } from './mothers.js'

/**
 * Appends a task's history straight to the log, as a worker leaves it: `completed`
 * (created, started, completed), `failed` (an agent error) or `running` (created, started).
 */
export async function aTaskThatIs(infra: AppContext, accountId: string, sessionId: string, status: 'completed' | 'failed' | 'running', instruction: string): Promise<string> {
  const [created, started, completed] = endedTaskDrafts(sessionId, instruction)
  if (!created || !started || !completed || completed.type !== 'TaskCompleted') throw new Error('endedTaskDrafts changed shape')
  const { billingMonth, reservedMicros } = completed.data
  const failed: TaskEvent = { type: 'TaskFailed', data: { error: 'the agent could not produce a result', reason: 'agent_error', usage: null, costMicros: 0, billingMonth, reservedMicros } }
  const drafts = { completed: [created, started, completed], failed: [created, started, failed], running: [created, started] }[status]
  const taskId = randomUUID()
  const metadata = { correlationId: randomUUID(), causationId: null, keyId: null }
  await infra.events.append(Task, { accountId, aggregateId: taskId }, drafts, { expectedVersion: 0, metadata, now: new Date() })
  return taskId
}

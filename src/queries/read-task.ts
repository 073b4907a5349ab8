import { findTask } from '../../projections/queries/tasks.js'
import { taskDocFromHistory, type TaskDoc } from '../../projections/index.js'
import { Task } from '../domain/tasks/task.js'
import type { Infra } from '../infra/context.js'

/**
 * A task as its owner sees it, never older than the log: from the read model when that has
 * applied the task's last event (always so once it ended: nothing follows a terminal
 * event), otherwise folded from the log itself, so a task whose creation was acknowledged
 * is never reported missing and a GET after any write shows it.
 */
export async function readTask(infra: Infra, accountId: string, taskId: string): Promise<TaskDoc | null> {
  const doc = await findTask(infra.readModels, accountId, taskId)
  if (doc && (doc.status === 'completed' || doc.status === 'failed')) return doc
  const last = await infra.events.version('task', { accountId, aggregateId: taskId })
  if (doc && doc._seq >= last) return doc
  return last === 0 ? null : readTaskFromLog(infra, accountId, taskId)
}

/** The task as the log has it, ignoring the read model. */
export async function readTaskFromLog(infra: Infra, accountId: string, taskId: string): Promise<TaskDoc | null> {
  const { events } = await infra.events.load(Task, { accountId, aggregateId: taskId })
  return taskDocFromHistory(events)
}

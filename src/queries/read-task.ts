import { findTask } from '../../projections/queries/tasks.js'
import { taskDocFromHistory, type TaskDoc } from '../../projections/index.js'
import { Task } from '../domain/tasks/task.js'
import type { Infra } from '../infra/context.js'

/**
 * A task as its owner sees it: from the read model, or, when that has not caught up
 * (its inline update failed, or a rebuild is flipping generations), folded from the
 * log itself, so a task whose creation was acknowledged is never reported missing.
 */
export async function readTask(infra: Infra, accountId: string, taskId: string): Promise<TaskDoc | null> {
  return (await findTask(infra.readModels, accountId, taskId)) ?? readTaskFromLog(infra, accountId, taskId)
}

/** The task as the log has it, ignoring the read model. */
export async function readTaskFromLog(infra: Infra, accountId: string, taskId: string): Promise<TaskDoc | null> {
  const { events } = await infra.events.load(Task, { accountId, aggregateId: taskId })
  return taskDocFromHistory(events)
}

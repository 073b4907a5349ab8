import { decideRerun } from '../../domain/tasks/reruns.js'
import { Task, type TaskEvent, type TaskState } from '../../domain/tasks/task.js'
import { createChecked, type CreateTaskContext } from '../create-task/create-task.js'
import type { Executed, Issuer } from '../execute.js'
import { appendRerun } from './append-rerun.js'

/**
 * Creates `rerunTaskId`, a new task with the session, agent, instruction, title and
 * priority of task `taskId`, under every check of a creation (404, 402, 409), stored with
 * the link on the original. 404 for an unknown task or one of another account: its events
 * are on the account's subjects.
 */
export async function rerunTask(infra: CreateTaskContext, key: { accountId: string; taskId: string; rerunTaskId: string }, issuer: Issuer): Promise<Executed<TaskState, TaskEvent>> {
  infra.link.assertUp()
  const original = await infra.events.load(Task, { accountId: key.accountId, aggregateId: key.taskId })
  const brief = decideRerun(original.state)
  return createChecked(
    infra,
    key.accountId,
    { taskId: key.rerunTaskId, ...brief },
    (created) => appendRerun(infra, key.accountId, key.rerunTaskId, { ...created, rerunOf: key.taskId }, issuer),
    issuer.receivedAt,
  )
}

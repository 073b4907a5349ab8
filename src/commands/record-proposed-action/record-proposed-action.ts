import { decideRecordAction, Task, type TaskActionProposed } from '../../domain/tasks/task.js'
import type { CommandContext } from '../context.js'
import { execute, type Issuer } from '../execute.js'

/** Appends TaskActionProposed to the running task; only its worker may, and an action id is recorded once. */
export async function recordProposedAction(infra: CommandContext, key: { accountId: string; taskId: string }, workerId: string, action: TaskActionProposed['data'], issuer: Issuer): Promise<void> {
  await execute(infra, Task, { accountId: key.accountId, aggregateId: key.taskId }, (state) => decideRecordAction({ workerId, action }, state), issuer)
}

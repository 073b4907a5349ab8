import { decideFinishTask, Task, type FinishTask } from '../../domain/tasks/task.js'
import type { Infra } from '../../infra/context.js'
import { execute, type Issuer } from '../execute.js'

/** Appends the task's one terminal event; a ConflictError means it had already ended. */
export async function finishTask(infra: Infra, key: { accountId: string; taskId: string }, outcome: FinishTask, issuer: Issuer): Promise<void> {
  await execute(infra, Task, { accountId: key.accountId, aggregateId: key.taskId }, (state) => decideFinishTask(outcome, state), issuer)
}

import { decideRecordDelegation, Task, type TaskDelegated } from '../../domain/tasks/task.js'
import type { CommandContext } from '../context.js'
import { execute, type Issuer } from '../execute.js'

/** Appends TaskDelegated to the running supervisor task, linking it to the child task it created. */
export async function recordDelegation(infra: CommandContext, key: { accountId: string; taskId: string }, workerId: string, delegation: TaskDelegated['data'], issuer: Issuer): Promise<void> {
  await execute(infra, Task, { accountId: key.accountId, aggregateId: key.taskId }, (state) => decideRecordDelegation({ workerId, delegation }, state), issuer)
}

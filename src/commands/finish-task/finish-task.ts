import { decideFinishTask, Task, type FinishTask, type TaskEvent, type TaskState } from '../../domain/tasks/task.js'
import type { CommandContext } from '../context.js'
import type { Loaded } from '../../infra/nats/event-store.js'
import { execute, type Issuer } from '../execute.js'

/**
 * Appends the task's one terminal event; a ConflictError means it had already ended.
 * `known`: the task as the worker last wrote it, decided on without reading it again
 * (should the run have appended since, the append conflicts and the task is read).
 */
export async function finishTask(infra: CommandContext, key: { accountId: string; taskId: string }, outcome: FinishTask, issuer: Issuer, known?: Loaded<TaskState, TaskEvent>): Promise<void> {
  await execute(infra, Task, { accountId: key.accountId, aggregateId: key.taskId }, (state) => decideFinishTask(outcome, state), issuer, { loaded: known })
}

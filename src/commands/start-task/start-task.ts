import { decideStartTask, Task, type TaskEvent, type TaskState } from '../../domain/tasks/task.js'
import type { Loaded } from '../../infra/nats/event-store.js'
import type { Infra } from '../../infra/context.js'
import { PendingTasks } from '../../infra/nats/pending-tasks.js'
import { execute, type Issuer } from '../execute.js'

/**
 * Claims a pending task for a worker: TaskStarted is appended only if nothing else was
 * appended to the task since it was loaded, so two racing workers cannot both start it.
 * Throws TaskNotClaimableError when the task is not pending (any more). `loaded`: the task
 * as the caller just read it, to decide on without reading it again.
 */
export async function startTask(
  infra: Infra, key: { accountId: string; taskId: string }, workerId: string, issuer: Issuer, loaded?: Loaded<TaskState, TaskEvent>,
): Promise<Extract<TaskState, { status: 'running' }>> {
  const decide = (current: TaskState) => decideStartTask({ workerId }, current)
  const { state } = await execute(infra, Task, { accountId: key.accountId, aggregateId: key.taskId }, decide, issuer, { loaded })
  if (state.status !== 'running') throw new Error(`claim left task ${key.taskId} ${state.status}`)
  // No longer pending: an identical brief may be queued again.
  await infra.pendingTasks.release(PendingTasks.key(key.accountId, state.fingerprint), key.taskId).catch((err: unknown) => {
    infra.log.warn({ err, taskId: key.taskId }, 'could not clear the pending-task entry; the next identical request clears it')
  })
  return state
}

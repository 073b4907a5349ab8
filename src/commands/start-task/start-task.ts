import { decideStartTask, Task, type TaskEvent, type TaskState } from '../../domain/tasks/task.js'
import type { Loaded } from '../../infra/nats/event-store.js'
import type { CommandContext } from '../context.js'
import { execute, type Issuer } from '../execute.js'
import { releaseClaimedIdentity } from '../release-identity.js'

export type RunningTask = Extract<TaskState, { status: 'running' }>

/** A task this worker started, at the stream sequence of its TaskStarted: enough to finish it without reading it again. */
export interface ClaimedTask extends Loaded<TaskState, TaskEvent> {
  readonly state: RunningTask
}

/**
 * Claims a pending task for a worker: TaskStarted is appended only if nothing else was
 * appended to the task since it was loaded, so two racing workers cannot both start it.
 * Throws TaskNotClaimableError when the task is not pending (any more). `loaded`: the task
 * as the caller knows it (the delivered TaskCreated), to decide on without reading it again.
 */
export async function startTask(infra: CommandContext, key: { accountId: string; taskId: string }, workerId: string, issuer: Issuer, loaded?: Loaded<TaskState, TaskEvent>): Promise<ClaimedTask> {
  const decide = (current: TaskState) => decideStartTask({ workerId }, current)
  const { state, appended, history, accountId } = await execute(infra, Task, { accountId: key.accountId, aggregateId: key.taskId }, decide, issuer, { loaded })
  const started = appended.at(-1)
  if (state.status !== 'running' || !started) throw new Error(`claim left task ${key.taskId} ${state.status}`)
  releaseClaimedIdentity(infra, { ...key, fingerprint: state.fingerprint, identityRevision: state.identityRevision, scheduleId: state.scheduleId })
  return { state, version: started.seq, accountId, events: history }
}

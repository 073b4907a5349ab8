import { decideStartTask, Task, type TaskEvent, type TaskState } from '../../domain/tasks/task.js'
import type { Loaded } from '../../infra/nats/event-store.js'
import type { CommandContext } from '../context.js'
import { PendingTasks } from '../../infra/nats/pending-tasks.js'
import { execute, type Issuer } from '../execute.js'
import { whileUnreachable } from '../../infra/while-unreachable.js'

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
  releaseIdentity(infra, key, state.fingerprint)
  return { state, version: started.seq, accountId, events: history }
}

/** How long a claimed task's identity entry is tried to be cleared while NATS is slow or away. */
const RELEASE_RETRY_MS = 60_000

/**
 * A claimed task is no longer pending: an identical brief may be queued again (ADR 0011).
 * Not waited for, but tried again while NATS times out (a busy cluster): an entry left behind
 * would stay in the bucket until an identical request came and cleared it (create-task.ts).
 */
export function releaseIdentity(infra: CommandContext, key: { accountId: string; taskId: string }, fingerprint: string): void {
  const entry = PendingTasks.key(key.accountId, fingerprint)
  const onRetry = (err: unknown, attempt: number) => infra.log.info({ err, taskId: key.taskId, attempt }, 'could not clear the pending-task entry yet; trying again')
  void whileUnreachable(() => infra.pendingTasks.release(entry, key.taskId), { forMs: RELEASE_RETRY_MS, onRetry }).catch((err: unknown) => {
    infra.log.warn({ err, taskId: key.taskId }, 'could not clear the pending-task entry; the next identical request clears it')
  })
}

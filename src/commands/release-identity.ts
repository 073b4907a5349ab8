import type { CommandContext } from './context.js'
import { PendingTasks } from '../infra/nats/pending-tasks.js'
import { whileUnreachable } from '../infra/while-unreachable.js'

/** How long a task's identity entry is tried to be removed while NATS is slow or away. */
const RELEASE_RETRY_MS = 60_000

/**
 * Removes a task's identity entry (ADR 0011) once the task is no longer pending (claimed,
 * cancelled) or was never stored: an identical brief may be queued again. Not waited for (with
 * NATS out of reach it would add a timeout to an answer), but tried again while NATS times out
 * (a busy machine, ADR 0035): an entry left behind would answer 409 to an identical brief for
 * 30 s when its task was never stored, and stay in the bucket until such a brief came.
 * `revision`: the entry's, as the task's creation took it (TaskCreated's `identityRevision`);
 * undefined for a task created before it was recorded (the entry is then read first).
 */
export function releaseIdentity(infra: CommandContext, entry: string, taskId: string, revision: number | undefined): void {
  const onRetry = (err: unknown, attempt: number) => infra.log.info({ err, taskId, attempt }, 'could not clear the pending-task entry yet; trying again')
  void whileUnreachable(() => infra.pendingTasks.release(entry, taskId, revision), { forMs: RELEASE_RETRY_MS, onRetry }).catch((err: unknown) => {
    infra.log.warn({ err, taskId }, 'could not clear the pending-task entry; the next identical request clears it')
  })
}

/**
 * Removes the identity entry of a task that is no longer pending (claimed, cancelled): by the
 * revision its TaskCreated carries (ADR 0050), without reading it first and without waiting for
 * an answer (ADR 0063): an entry whose removal is lost names a task that is not pending, which the
 * next identical brief clears as stale. A task created before the revision was recorded has its
 * entry read first. A schedule's tick took none (ADR 0056): nothing to remove, nothing to read.
 */
export function releaseClaimedIdentity(
  infra: CommandContext,
  task: { accountId: string; taskId: string; fingerprint: string; identityRevision?: number | undefined; scheduleId?: string | undefined },
): void {
  if (task.identityRevision === undefined && task.scheduleId !== undefined) return
  const key = PendingTasks.key(task.accountId, task.fingerprint)
  if (task.identityRevision === undefined) releaseIdentity(infra, key, task.taskId, undefined)
  else infra.pendingTasks.releaseUnacknowledged(key, task.identityRevision)
}

import { decideCancelTask, Task } from '../../domain/tasks/task.js'
import type { CommandContext } from '../context.js'
import { execute, type Issuer } from '../execute.js'
import { releaseClaimedIdentity } from '../release-identity.js'

/**
 * Cancels a task of the account: a pending one fails at once, a running one is asked to
 * stop (its worker aborts the run within moments and records its end). 404 for an unknown
 * or foreign task, 409 for one that has already ended.
 */
export async function cancelTask(infra: CommandContext, key: { accountId: string; taskId: string }, issuer: Issuer): Promise<'ended' | 'stopping'> {
  const { state } = await execute(infra, Task, { accountId: key.accountId, aggregateId: key.taskId }, (current) => decideCancelTask({ requestedBy: issuer.keyId }, current), issuer)
  if (state.status !== 'failed') return 'stopping'
  infra.metrics.taskEnded(state.agentType, { outcome: 'failed', reason: 'cancelled' })
  // No longer pending: an identical brief may be queued again.
  releaseClaimedIdentity(infra, { ...key, fingerprint: state.fingerprint, identityRevision: state.identityRevision, scheduleId: state.scheduleId })
  return 'ended'
}

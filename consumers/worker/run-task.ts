import { releaseClaimedIdentity } from '../../src/commands/release-identity.js'
import type { ClaimedTask } from '../../src/commands/start-task/start-task.js'
import type { Issuer } from '../../src/commands/execute.js'
import type { Recorded } from '../../src/domain/message.js'
import { Task, type FinishTask, type TaskCreated, type TaskEvent, type TaskState } from '../../src/domain/tasks/task.js'
import type { Loaded } from '../../src/infra/nats/event-store.js'
import { isDependencyUnavailable } from '../../src/infra/unavailable.js'
import { readSession } from './run-agent.js'
import { claim, failChildrenRunningUnder, finish, learnFacts, runClaimed } from './run-claimed.js'
import type { RunContext, Running, TaskKey, TaskRef } from './run-context.js'

export type { RunContext, Running, TaskKey, TaskRef } from './run-context.js'

/** A redelivered task's claimer is still alive (its in-progress acks were lost, not it): the message is handed back for later. */
export class ClaimerAliveError extends Error {
  override readonly name = 'ClaimerAliveError'
  constructor(
    message: string,
    readonly aliveForMs: number,
  ) {
    super(message)
  }
}

const SUPERVISED_RECHECK_MS = 1000

/**
 * Takes one delivered TaskCreated to its end. A pending task is claimed and run once. A
 * running task whose TaskCreated comes back was claimed by a worker that died: it is
 * failed, with the delegated tasks that worker was running for it, never run again. A
 * completed task has its learned facts recorded (again: that is idempotent), in case its
 * worker died in between. Never throws for a task that was dealt with; the caller
 * acknowledges the message afterwards.
 */
export async function runTask(ctx: RunContext, ref: TaskRef, onAgentEnded?: () => void): Promise<void> {
  const key: TaskKey = { accountId: ref.accountId, taskId: ref.taskId }
  const issuer: Issuer = { correlationId: ref.taskId, keyId: null, receivedAt: null }
  // First delivery: the task is almost always still what the delivered event says, so claim
  // it as that, without reading it (should anything have been appended since, the claim
  // conflicts, and the task is read below).
  if (!ref.redelivered) {
    // The session is read while the claim is appended: one round trip fewer before the run.
    const session = readSession(ctx, key.accountId, ref.created.data.sessionId)
    session.catch(() => undefined)
    const claimed = await claimDelivered(ctx, key, issuer, asDelivered(ref.created))
    if (claimed) return void (await runClaimed(ctx, key, claimed, issuer, null, session, onAgentEnded))
  }
  // At least the delivered event: a lagging replica must not make the task look absent (invariant 10).
  const loaded = await ctx.infra.events.load(Task, { accountId: key.accountId, aggregateId: key.taskId }, { atLeast: ref.created.seq })
  const { state } = loaded
  const ownClaim = claimStoredAfterAll(ctx, key, loaded)
  if (ownClaim) return void (await runClaimed(ctx, key, ownClaim, issuer, null, undefined, onAgentEnded))
  if (state.status === 'running') {
    if (!ref.redelivered) return ctx.log.warn({ taskId: ref.taskId }, 'task already running under another delivery; left alone')
    const aliveForMs = state.workerId === ctx.workerId ? 0 : await ctx.heartbeats.aliveFor(state.workerId, ctx.infra.clock())
    // A delegated task is run by its supervisor's worker, which holds no message for it: its
    // own message coming back says nothing. It is handed back, not acknowledged, until its
    // supervisor has ended: should that worker die, the supervisor's redelivery fails both,
    // and a delegation its supervisor never recorded is failed here.
    if (await runByItsSupervisor(ctx, key, state)) {
      throw new ClaimerAliveError(`delegated task ${key.taskId} runs under its supervisor ${state.parentTaskId ?? ''}`, Math.max(aliveForMs, SUPERVISED_RECHECK_MS))
    }
    if (aliveForMs > 0) throw new ClaimerAliveError(`task ${key.taskId} is still run by ${state.workerId}, which is alive`, aliveForMs)
    return failLost(ctx, key, state, issuer)
  }
  if (state.status === 'completed') return learnFacts(ctx, key, state.sessionId, state.learnedFacts, issuer)
  if (state.status !== 'pending') return
  const running = await claimDelivered(ctx, key, issuer, loaded)
  if (running) await runClaimed(ctx, key, running, issuer, null, undefined, onAgentEnded)
}

/**
 * Claims the task of a delivered message. A claim NATS did not answer in time (a timeout
 * under load) may still be stored, at once or a moment later: the task is then running under
 * this worker, which never ran it. It is remembered as in doubt, and the message goes back;
 * when it comes back, a task found running under this worker is this claim and is run then
 * (claimStoredAfterAll), not judged lost. Should that late claim beat this one, the message
 * goes back once more to find it.
 */
async function claimDelivered(ctx: RunContext, key: TaskKey, issuer: Issuer, loaded: Loaded<TaskState, TaskEvent>): Promise<ClaimedTask | null> {
  let claimed: ClaimedTask | null
  try {
    claimed = await claim(ctx, key, issuer, loaded)
  } catch (err) {
    if (isDependencyUnavailable(err)) ctx.claimsInDoubt.add(key.taskId)
    throw err
  }
  if (claimed) ctx.claimsInDoubt.delete(key.taskId)
  else if (ctx.claimsInDoubt.has(key.taskId)) throw new ClaimerAliveError(`task ${key.taskId} was claimed by another append: perhaps this worker's own, stored late`, SUPERVISED_RECHECK_MS)
  return claimed
}

/** The task as claimed by this worker's earlier claim whose answer was lost (claimDelivered); null for any other task. */
function claimStoredAfterAll(ctx: RunContext, key: TaskKey, loaded: Loaded<TaskState, TaskEvent>): ClaimedTask | null {
  const { state } = loaded
  if (state.status !== 'running' || state.workerId !== ctx.workerId || !ctx.claimsInDoubt.delete(key.taskId)) return null
  ctx.log.warn({ taskId: key.taskId }, 'a claim NATS did not confirm in time was stored: running the task now')
  releaseClaimedIdentity(ctx.infra, { ...key, fingerprint: state.fingerprint, identityRevision: state.identityRevision, scheduleId: state.scheduleId })
  return { state, version: loaded.version, accountId: loaded.accountId, events: loaded.events }
}

function asDelivered(created: Recorded<TaskCreated>): Loaded<TaskState, TaskEvent> {
  return { state: Task.evolve(Task.initialState, created), version: created.seq, accountId: created.accountId, events: [created] }
}

async function runByItsSupervisor(ctx: RunContext, key: TaskKey, task: Running): Promise<boolean> {
  if (task.taskType !== 'delegated' || task.parentTaskId === null) return false
  const parent = await ctx.infra.events.load(Task, { accountId: key.accountId, aggregateId: task.parentTaskId })
  return parent.state.status === 'running' && parent.state.workerId === task.workerId
}

async function failLost(ctx: RunContext, key: TaskKey, task: Running, issuer: Issuer): Promise<void> {
  const error = `the worker running this task (${task.workerId}) stopped responding; tasks are not retried`
  const lost: FinishTask = { outcome: 'failed', error, reason: 'worker_lost', usage: null, costMicros: 0 }
  await failChildrenRunningUnder(ctx, key.accountId, task.delegatedTaskIds, task.workerId, lost, issuer)
  await finish(ctx, key, task.agentType, lost, issuer)
}

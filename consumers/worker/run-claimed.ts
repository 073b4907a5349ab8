import { finishTask } from '../../src/commands/finish-task/finish-task.js'
import { learnSessionFacts } from '../../src/commands/learn-session-facts/learn-session-facts.js'
import { startTask, type ClaimedTask } from '../../src/commands/start-task/start-task.js'
import type { Issuer } from '../../src/commands/execute.js'
import { ConflictError } from '../../src/domain/errors.js'
import type { SessionState } from '../../src/domain/sessions/session.js'
import { Task, TaskNotClaimableError, type FinishTask, type TaskEvent, type TaskState } from '../../src/domain/tasks/task.js'
import type { Loaded } from '../../src/infra/nats/event-store.js'
import { whileUnreachable } from '../../src/infra/while-unreachable.js'
import { TaskCancelledError } from './cancellations.js'
import { CANCELLED_WITH_PARENT, PARENT_ENDED, runAgent } from './run-agent.js'
import type { RunContext, TaskKey } from './run-context.js'

/** How long a finished run keeps trying to record its end while the log is out of reach. */
const FINISH_RETRY_MS = 10 * 60 * 1000

/** Starts a pending task for this worker; null when another worker got it first. */
export async function claim(ctx: RunContext, key: TaskKey, issuer: Issuer, loaded?: Loaded<TaskState, TaskEvent>): Promise<ClaimedTask | null> {
  try {
    return await startTask(ctx.infra, key, ctx.workerId, issuer, loaded)
  } catch (err) {
    if (err instanceof TaskNotClaimableError) return null
    throw err
  }
}

/** Runs a claimed task's agent, records its end and what it learned. `parent` aborts a delegated run when its supervisor's run ends. */
export async function runClaimed(
  ctx: RunContext,
  key: TaskKey,
  claimed: ClaimedTask,
  issuer: Issuer,
  parent: AbortSignal | null,
  session?: Promise<SessionState>,
  onAgentEnded?: () => void,
): Promise<FinishTask> {
  const task = claimed.state
  ctx.log.info({ taskId: key.taskId, agentType: task.agentType, taskType: task.taskType }, 'task started')
  const children: string[] = []
  const startedAt = performance.now()
  ctx.infra.metrics.taskStarted(task.agentType)
  const cancel = ctx.cancellations.signalFor(key.taskId)
  const outcome = await runAgent(ctx, key, task, issuer, {
    parent,
    cancel,
    children,
    runChild: (childKey, childIssuer, signal) => runChild(ctx, childKey, childIssuer, signal),
    ...(session ? { session } : {}),
  }).finally(() => ctx.cancellations.done(key.taskId))
  onAgentEnded?.()
  await finish(ctx, key, task.agentType, outcome, issuer, claimed)
  ctx.infra.metrics.runEnded(task.agentType, { ...outcome, seconds: (performance.now() - startedAt) / 1000 })
  await failUnfinishedChildren(ctx, key, children, issuer, outcome)
  if (outcome.outcome === 'completed') await learnFacts(ctx, key, task.sessionId, outcome.learnedFacts, issuer)
  return outcome
}

/** Claims a delegated task and runs it under its supervisor's run; null when another worker claimed it first. */
async function runChild(ctx: RunContext, childKey: TaskKey, issuer: Issuer, parent: AbortSignal): Promise<FinishTask | null> {
  const child = await claim(ctx, childKey, issuer)
  return child ? runClaimed(ctx, childKey, child, issuer, parent) : null
}

/**
 * A supervisor's run waits for its delegated runs, and they stop when it ends; one still
 * running here could not record its end (the log was out of reach). Nothing else would
 * ever end it: its message is acknowledged and its supervisor's is about to be.
 */
async function failUnfinishedChildren(ctx: RunContext, key: TaskKey, children: readonly string[], issuer: Issuer, ended: FinishTask): Promise<void> {
  const cancelled = ended.outcome === 'failed' && ended.reason === 'cancelled'
  const outcome = cancelled ? CANCELLED_WITH_PARENT : PARENT_ENDED
  await failChildrenRunningUnder(ctx, key.accountId, children, ctx.workerId, outcome, issuer)
  // A child this worker's own consumer claimed before the supervisor could (its TaskCreated is
  // delivered like any other) runs unlinked from the supervisor's run, which only waited for
  // it: its end is recorded above, and its run, still holding a model call, is stopped here
  // instead of at its time limit. Its own outcome is then dropped (the task has ended).
  for (const taskId of children) ctx.cancellations.abortRun(taskId, new TaskCancelledError(`task ${taskId}: ${outcome.error}`))
}

/** Ends, as `outcome`, each of these delegated tasks still running under `workerId`. */
export async function failChildrenRunningUnder(ctx: RunContext, accountId: string, children: readonly string[], workerId: string, outcome: FinishTask, issuer: Issuer): Promise<void> {
  for (const taskId of children) {
    const child = await ctx.infra.events.load(Task, { accountId, aggregateId: taskId })
    if (child.state.status === 'running' && child.state.workerId === workerId) await finish(ctx, { accountId, taskId }, child.state.agentType, outcome, issuer)
  }
}

export async function learnFacts(ctx: RunContext, key: TaskKey, sessionId: string, facts: readonly string[], issuer: Issuer): Promise<void> {
  const learned = await learnSessionFacts(ctx.infra, { accountId: key.accountId, sessionId }, key.taskId, facts, issuer)
  if (learned > 0) ctx.log.info({ taskId: key.taskId, sessionId, learned }, 'session learned facts')
}

export async function finish(ctx: RunContext, key: TaskKey, agentType: string, outcome: FinishTask, issuer: Issuer, known?: ClaimedTask): Promise<void> {
  try {
    await untilReachable(ctx, key, () => finishTask(ctx.infra, key, outcome, issuer, known))
    ctx.infra.metrics.taskEnded(agentType, outcome)
    ctx.log.info({ taskId: key.taskId, outcome: outcome.outcome, ...(outcome.outcome === 'failed' ? { reason: outcome.reason } : {}) }, 'task finished')
  } catch (err) {
    // Another worker already ended it (it judged this one lost): its verdict stands.
    if (!(err instanceof ConflictError)) throw err
    ctx.log.warn({ taskId: key.taskId }, 'task had already ended; outcome dropped')
  }
}

/**
 * A run that ended is never dropped for want of the log (invariant 11): its end is appended
 * again (idempotently: the same decision, guarded by the claim's sequence) until NATS takes
 * it, for up to FINISH_RETRY_MS, while the worker keeps the task's message alive.
 */
async function untilReachable(ctx: RunContext, key: TaskKey, append: () => Promise<unknown>): Promise<void> {
  await whileUnreachable(append, {
    forMs: FINISH_RETRY_MS,
    onRetry: (err, attempt) => ctx.log.warn({ err, taskId: key.taskId, attempt }, 'could not record the end of a run; trying again'),
  })
}

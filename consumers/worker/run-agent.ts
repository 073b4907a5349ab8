import { setTimeout as sleep } from 'node:timers/promises'
import type { Issuer } from '../../src/commands/execute.js'
import { findAgent } from '../../src/domain/agents/catalogue.js'
import { requireOpenSession, Session, type SessionState } from '../../src/domain/sessions/session.js'
import type { FailureReason, FinishTask } from '../../src/domain/tasks/task.js'
import { isDependencyUnavailable } from '../../src/infra/unavailable.js'
import { AgentRunError, type AgentRunRequest } from '../agents/provider.js'
import { TaskCancelledError } from './cancellations.js'
import { linkedSignal } from './linked-signal.js'
import { runEffects } from './run-effects.js'
import type { ChildRunner, RunContext, Running, TaskKey } from './run-context.js'

/** How a delegated task ends when its supervisor's run ended first. */
export const PARENT_ENDED = {
  outcome: 'failed',
  reason: 'parent_ended',
  error: 'the supervising task ended before this delegated run finished',
  usage: null,
  costMicros: 0,
} as const satisfies FinishTask
/** How a delegated task ends when its supervising task was cancelled. */
export const CANCELLED_WITH_PARENT = { outcome: 'failed', reason: 'cancelled', error: 'cancelled with its supervising task', usage: null, costMicros: 0 } as const satisfies FinishTask

export interface RunLinks {
  /** The supervisor's run, for a delegated task. */
  readonly parent: AbortSignal | null
  /** Aborts when the task is cancelled. */
  readonly cancel: AbortSignal
  /** Filled with the ids of the tasks this run delegates to. */
  readonly children: string[]
  /** The session, when the caller started reading it already (while it claimed the task). */
  readonly session?: Promise<SessionState>
  /** Runs a task this run delegates to. */
  readonly runChild: ChildRunner
}

/** The task's session as the log has it. */
export async function readSession(ctx: RunContext, accountId: string, sessionId: string): Promise<SessionState> {
  return (await ctx.infra.events.load(Session, { accountId, aggregateId: sessionId })).state
}

const SESSION_RETRY_MS = [250, 500, 1000, 2000]

/**
 * The session a run starts from. NATS out of reach at that moment (a restart, an election, a
 * worker briefly cut off) delays the run, within its time limit, instead of failing it.
 */
async function sessionForRun(ctx: RunContext, key: TaskKey, sessionId: string, reading: Promise<SessionState> | undefined, signal: AbortSignal): Promise<SessionState> {
  let attempt = reading ?? readSession(ctx, key.accountId, sessionId)
  for (let n = 0; ; n++) {
    try {
      return await attempt
    } catch (err) {
      if (!isDependencyUnavailable(err)) throw err
      ctx.log.warn({ err, taskId: key.taskId, attempt: n }, 'could not read the session to start the run; trying again')
      await sleep((SESSION_RETRY_MS[n] ?? 2000) * (0.5 + Math.random()), undefined, { signal })
      attempt = readSession(ctx, key.accountId, sessionId)
    }
  }
}

/**
 * One agent run of a claimed task, bounded by its time limit, the worker's shutdown and,
 * for a delegated task, its supervisor's run. Whatever happens, it returns how the task
 * ends; tokens a failed run spent are still counted.
 */
export async function runAgent(ctx: RunContext, key: TaskKey, task: Running, issuer: Issuer, { parent, cancel, children, runChild, session: reading }: RunLinks): Promise<FinishTask> {
  const linked = linkedSignal([ctx.shutdown, cancel, ...(parent ? [parent] : [])])
  const { signal } = linked
  // The linked signal is aborted at the run's time limit too, and when the run ends however it
  // ends: whatever it started (delegated runs) stops with it. A plain timer: AbortSignal.timeout
  // and controllers of their own cost a run 4-5 µs more (docs/benchmarks.md, 2026-11-28, session 19).
  let timedOut = false
  const timeLimit = setTimeout(() => {
    timedOut = true
    linked.abort(new DOMException('the run exceeded its time limit', 'TimeoutError'))
  }, ctx.timeoutMs).unref()
  try {
    const session = requireOpenSession(await sessionForRun(ctx, key, task.sessionId, reading, signal))
    const request: AgentRunRequest = {
      task: { id: key.taskId, agentType: task.agentType, instruction: task.instruction, title: task.title },
      agent: findAgent(task.agentType),
      session: { ...session, facts: session.facts.map((known) => known.fact) },
    }
    const result = await ctx.provider.run(request, runEffects(ctx, { key, task, autonomy: session.autonomy, issuer, signal, children, runChild }), signal)
    return { outcome: 'completed', result: result.output, usage: result.usage, costMicros: result.costMicros, learnedFacts: result.learnedFacts }
  } catch (err) {
    const spent = err instanceof AgentRunError ? err.spent : null
    const failed = (reason: FailureReason, error: string): FinishTask => ({ outcome: 'failed', reason, error, usage: spent?.usage ?? null, costMicros: spent?.costMicros ?? 0 })
    if (cancel.aborted) return failed('cancelled', 'cancelled while it ran; what it spent until then is counted')
    if (parent?.aborted && parent.reason instanceof TaskCancelledError) return { ...CANCELLED_WITH_PARENT, usage: spent?.usage ?? null, costMicros: spent?.costMicros ?? 0 }
    if (timedOut) return failed('timeout', `the run exceeded its time limit of ${describeMs(ctx.timeoutMs)}`)
    if (ctx.shutdown.aborted) return failed('worker_shutdown', 'the worker shut down before the run finished; tasks are not retried')
    if (parent?.aborted) return { ...PARENT_ENDED, usage: spent?.usage ?? null, costMicros: spent?.costMicros ?? 0 }
    if (err instanceof AgentRunError && !err.internal) {
      ctx.log.warn({ taskId: key.taskId, reason: err.reason, error: err.message }, 'agent run failed')
      return failed(err.reason, err.message)
    }
    ctx.log.warn({ err, taskId: key.taskId }, 'agent run failed')
    return failed('agent_error', 'the agent run stopped on an internal error; the worker log has the details')
  } finally {
    clearTimeout(timeLimit)
    linked.abort(new Error('the run has ended'))
    linked.dispose()
  }
}

function describeMs(ms: number): string {
  const [amount, unit] = ms % 60_000 === 0 ? [ms / 60_000, 'minute'] : [ms / 1000, 'second']
  return `${amount} ${unit}${amount === 1 ? '' : 's'}`
}

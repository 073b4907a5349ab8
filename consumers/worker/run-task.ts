import type { Logger } from 'pino'
import { finishTask } from '../../src/commands/finish-task/finish-task.js'
import { startTask } from '../../src/commands/start-task/start-task.js'
import type { Issuer } from '../../src/commands/execute.js'
import { findAgent } from '../../src/domain/agents/catalogue.js'
import { ConflictError } from '../../src/domain/errors.js'
import { requireOpenSession, Session } from '../../src/domain/sessions/session.js'
import { Task, TaskNotClaimableError, type FinishTask } from '../../src/domain/tasks/task.js'
import type { Infra } from '../../src/infra/context.js'
import { AgentRunError, type AgentProvider } from '../agents/provider.js'

export interface TaskRef {
  readonly accountId: string
  readonly taskId: string
  /** The TaskCreated was delivered before: whoever held it stopped acknowledging it. */
  readonly redelivered: boolean
}

export interface RunContext {
  readonly infra: Infra
  readonly provider: AgentProvider
  readonly workerId: string
  readonly timeoutMs: number
  /** Aborts every run when the worker's shutdown grace period is over. */
  readonly shutdown: AbortSignal
  readonly log: Logger
}

/**
 * Takes one delivered TaskCreated to its end. A pending task is claimed and run once. A
 * running task whose TaskCreated comes back was claimed by a worker that died: it is
 * failed, never run again. Anything else has already ended. Never throws for a task
 * that was dealt with; the caller acknowledges the message afterwards.
 */
export async function runTask(ctx: RunContext, ref: TaskRef): Promise<void> {
  const key = { accountId: ref.accountId, taskId: ref.taskId }
  const issuer: Issuer = { correlationId: ref.taskId, keyId: null }
  const { state } = await ctx.infra.events.load(Task, { accountId: ref.accountId, aggregateId: ref.taskId })
  if (state.status === 'running') {
    if (!ref.redelivered) return ctx.log.warn({ taskId: ref.taskId }, 'task already running under another delivery; left alone')
    const error = `the worker running this task (${state.workerId}) stopped responding; tasks are not retried`
    return finish(ctx, key, { outcome: 'failed', error, reason: 'worker_lost', usage: null, costMicros: 0 }, issuer)
  }
  if (state.status !== 'pending') return
  try {
    await startTask(ctx.infra, key, ctx.workerId, issuer)
  } catch (err) {
    if (err instanceof TaskNotClaimableError) return
    throw err
  }
  ctx.log.info({ taskId: ref.taskId, agentType: state.agentType }, 'task started')
  await finish(ctx, key, await runAgent(ctx, ref, state), issuer)
}

async function runAgent(ctx: RunContext, ref: TaskRef, task: { sessionId: string; agentType: Parameters<typeof findAgent>[0]; instruction: string; title: string | null }): Promise<FinishTask> {
  const timeout = AbortSignal.timeout(ctx.timeoutMs)
  const signal = AbortSignal.any([timeout, ctx.shutdown])
  try {
    const session = requireOpenSession((await ctx.infra.events.load(Session, { accountId: ref.accountId, aggregateId: task.sessionId })).state)
    const request = { task: { id: ref.taskId, agentType: task.agentType, instruction: task.instruction, title: task.title }, agent: findAgent(task.agentType), session }
    const result = await ctx.provider.run(request, signal)
    return { outcome: 'completed', result: result.output, usage: result.usage, costMicros: result.costMicros }
  } catch (err) {
    if (timeout.aborted) {
      return { outcome: 'failed', reason: 'timeout', error: `the run exceeded its time limit of ${describeMs(ctx.timeoutMs)}`, usage: null, costMicros: 0 }
    }
    if (ctx.shutdown.aborted) {
      return { outcome: 'failed', reason: 'worker_shutdown', error: 'the worker shut down before the run finished; tasks are not retried', usage: null, costMicros: 0 }
    }
    const message = err instanceof AgentRunError ? err.message : `the agent failed: ${err instanceof Error ? err.message : String(err)}`
    ctx.log.warn({ err, taskId: ref.taskId }, 'agent run failed')
    return { outcome: 'failed', reason: 'agent_error', error: message, usage: null, costMicros: 0 }
  }
}

async function finish(ctx: RunContext, key: { accountId: string; taskId: string }, outcome: FinishTask, issuer: Issuer): Promise<void> {
  try {
    await finishTask(ctx.infra, key, outcome, issuer)
    ctx.log.info({ taskId: key.taskId, outcome: outcome.outcome }, 'task finished')
  } catch (err) {
    // Another worker already ended it (it judged this one lost): its verdict stands.
    if (!(err instanceof ConflictError)) throw err
    ctx.log.warn({ taskId: key.taskId }, 'task had already ended; outcome dropped')
  }
}

function describeMs(ms: number): string {
  const [amount, unit] = ms % 60_000 === 0 ? [ms / 60_000, 'minute'] : [ms / 1000, 'second']
  return `${amount} ${unit}${amount === 1 ? '' : 's'}`
}

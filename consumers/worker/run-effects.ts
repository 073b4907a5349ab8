import { randomUUID } from 'node:crypto'
import { createTask } from '../../src/commands/create-task/create-task.js'
import type { Issuer } from '../../src/commands/execute.js'
import { recordDelegation } from '../../src/commands/record-delegation/record-delegation.js'
import { recordProposedAction } from '../../src/commands/record-proposed-action/record-proposed-action.js'
import { actionStatusFor, type ProposedAction } from '../../src/domain/actions/proposed-action.js'
import type { AgentType } from '../../src/domain/agents/catalogue.js'
import type { Autonomy } from '../../src/domain/sessions/autonomy.js'
import { awaitTaskEnd } from '../../src/queries/await-task-end.js'
import type { DelegationOutcome, RecordedAction, RunEffects } from '../agents/provider.js'
import { claim, runClaimed, type RunContext, type Running, type TaskKey } from './run-task.js'

/** The worker's side of a run: every proposed action and every delegation becomes an event. */
export function runEffects(ctx: RunContext, key: TaskKey, task: Running, autonomy: Autonomy, issuer: Issuer, signal: AbortSignal): RunEffects {
  return {
    proposeAction: (action) => proposeAction(ctx, key, autonomy, action, issuer, signal),
    delegate: task.taskType === 'instruction' ? (brief) => delegate(ctx, key, task, brief, issuer, signal) : null,
  }
}

async function proposeAction(ctx: RunContext, key: TaskKey, autonomy: Autonomy, action: ProposedAction, issuer: Issuer, signal: AbortSignal): Promise<RecordedAction> {
  const connector = ctx.connectors.find(action.platform)
  const disposition = actionStatusFor(autonomy, connector !== null)
  let recorded: RecordedAction
  if (disposition === 'execute' && connector) {
    const { reference } = await connector.execute(action, signal)
    recorded = { ...action, actionId: randomUUID(), status: 'executed', note: `platform reference ${reference}` }
  } else {
    const note = disposition === 'not_executed' ? `no connector for ${action.platform} is reachable from this deployment; nothing was changed` : null
    recorded = { ...action, actionId: randomUUID(), status: disposition === 'execute' ? 'not_executed' : disposition, note }
  }
  await recordProposedAction(ctx.infra, key, ctx.workerId, recorded, issuer)
  return recorded
}

/**
 * Runs part of a supervisor's brief as a task of its own (taskType `delegated`), in this
 * worker and outside its concurrency limit: the supervisor holds a slot while it waits,
 * so queueing the child behind other tasks could deadlock. Should another worker claim
 * the child first, this waits for its end instead.
 */
async function delegate(ctx: RunContext, parentKey: TaskKey, parent: Running, brief: { agentType: AgentType; instruction: string }, issuer: Issuer, signal: AbortSignal): Promise<DelegationOutcome> {
  const childKey = { accountId: parentKey.accountId, taskId: randomUUID() }
  await createTask(ctx.infra, parentKey.accountId, {
    taskId: childKey.taskId,
    sessionId: parent.sessionId,
    agentType: brief.agentType,
    instruction: brief.instruction,
    title: null,
    priority: parent.priority,
    taskType: 'delegated',
    parentTaskId: parentKey.taskId,
  }, issuer)
  await recordDelegation(ctx.infra, parentKey, ctx.workerId, { childTaskId: childKey.taskId, agentType: brief.agentType, instruction: brief.instruction }, issuer)
  const child = await claim(ctx, childKey, issuer)
  if (child) {
    const outcome = await runClaimed(ctx, childKey, child, issuer, signal)
    return outcome.outcome === 'completed'
      ? { taskId: childKey.taskId, agentType: brief.agentType, status: 'completed', output: outcome.result, error: null }
      : { taskId: childKey.taskId, agentType: brief.agentType, status: 'failed', output: null, error: outcome.error }
  }
  const ended = await awaitTaskEnd(ctx.infra, childKey.accountId, childKey.taskId, ctx.timeoutMs)
  if (ended?.status === 'completed') return { taskId: childKey.taskId, agentType: brief.agentType, status: 'completed', output: ended.result, error: null }
  return { taskId: childKey.taskId, agentType: brief.agentType, status: 'failed', output: null, error: ended?.error ?? 'the delegated task did not end in time' }
}

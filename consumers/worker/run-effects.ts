import { randomUUID } from 'node:crypto'
import { delegateTask } from '../../src/commands/delegate-task/delegate-task.js'
import type { Issuer } from '../../src/commands/execute.js'
import { recordProposedAction } from '../../src/commands/record-proposed-action/record-proposed-action.js'
import { actionStatusFor, type ProposedAction } from '../../src/domain/actions/proposed-action.js'
import type { AgentType } from '../../src/domain/agents/catalogue.js'
import type { Autonomy } from '../../src/domain/sessions/autonomy.js'
import { awaitTaskEnd } from '../../src/queries/await-task-end.js'
import type { DelegationOutcome, RecordedAction, RunEffects } from '../agents/provider.js'
import type { ChildRunner, RunContext, Running, TaskKey } from './run-context.js'

/**
 * The worker's side of a run: every proposed action and every delegation becomes an event.
 * A turn's tool calls run in parallel, but their appends to the task go one at a time:
 * racing appends to one aggregate would only conflict and retry.
 */
export function runEffects(ctx: RunContext, run: RunOf): RunEffects {
  const serial = serially()
  return {
    proposeAction: (action) => proposeAction(ctx, run, serial, action),
    delegate: run.task.taskType === 'instruction' ? (brief) => delegate(ctx, run, serial, brief) : null,
  }
}

/** The run a RunEffects belongs to. */
interface RunOf {
  readonly key: TaskKey
  readonly task: Running
  readonly autonomy: Autonomy
  readonly issuer: Issuer
  readonly signal: AbortSignal
  /** Where the ids of delegated tasks are kept, for the worker to check once the run ends. */
  readonly children: string[]
  /** Claims and runs a delegated task here. */
  readonly runChild: ChildRunner
}

type Serial = <T>(work: () => Promise<T>) => Promise<T>

/** Runs the work it is given one piece after another, in the order given. */
function serially(): Serial {
  let tail: Promise<unknown> = Promise.resolve()
  return <T>(work: () => Promise<T>): Promise<T> => {
    const next = tail.then(work)
    tail = next.catch(() => undefined)
    return next
  }
}

async function proposeAction(ctx: RunContext, { key, autonomy, issuer, signal }: RunOf, appendToTask: Serial, action: ProposedAction): Promise<RecordedAction> {
  const connector = ctx.connectors.find(action.platform)
  const disposition = actionStatusFor(autonomy, connector !== null)
  const actionId = randomUUID()
  let recorded: RecordedAction
  if (disposition === 'execute' && connector) {
    const { reference } = await connector.execute({ ...action, actionId }, signal)
    recorded = { ...action, actionId, status: 'executed', note: `platform reference ${reference}` }
  } else {
    const note = disposition === 'not_executed' ? `no connector for ${action.platform} is reachable from this deployment; nothing was changed` : null
    recorded = { ...action, actionId, status: disposition === 'execute' ? 'not_executed' : disposition, note }
  }
  await appendToTask(() => recordProposedAction(ctx.infra, key, ctx.workerId, recorded, issuer))
  return recorded
}

/**
 * Runs part of a supervisor's brief as a task of its own (taskType `delegated`), in this
 * worker and outside its concurrency limit: the supervisor holds a slot while it waits,
 * so queueing the child behind other tasks could deadlock. Should another worker claim
 * the child first, this waits for its end instead.
 */
async function delegate(ctx: RunContext, run: RunOf, appendToTask: Serial, brief: { agentType: AgentType; instruction: string }): Promise<DelegationOutcome> {
  const { key: parentKey, task: parent, issuer, signal } = run
  const childKey = { accountId: parentKey.accountId, taskId: randomUUID() }
  const delegation = { childTaskId: childKey.taskId, agentType: brief.agentType, instruction: brief.instruction }
  const supervisor = { ...parentKey, sessionId: parent.sessionId, priority: parent.priority }
  // The child's TaskCreated and the supervisor's TaskDelegated, stored together (ADR 0034).
  await delegateTask(ctx.infra, supervisor, ctx.workerId, delegation, issuer, appendToTask)
  run.children.push(childKey.taskId)
  const ended = await runOrAwait(ctx, run.runChild, childKey, issuer, signal)
  const settled = { taskId: childKey.taskId, agentType: brief.agentType }
  return ended.completed ? { ...settled, status: 'completed', output: ended.result, error: null } : { ...settled, status: 'failed', output: null, error: ended.error }
}

type Ended = { readonly completed: true; readonly result: string } | { readonly completed: false; readonly error: string }

/** Runs the child here, or, when another worker claimed it first, waits for that run's end. */
async function runOrAwait(ctx: RunContext, runChild: ChildRunner, childKey: TaskKey, issuer: Issuer, signal: AbortSignal): Promise<Ended> {
  const outcome = await runChild(childKey, issuer, signal)
  if (outcome) {
    return outcome.outcome === 'completed' ? { completed: true, result: outcome.result } : { completed: false, error: outcome.error }
  }
  const doc = await awaitTaskEnd(ctx.infra, childKey.accountId, childKey.taskId, ctx.timeoutMs, signal)
  return doc?.status === 'completed' ? { completed: true, result: doc.result ?? '' } : { completed: false, error: doc?.error ?? 'the delegated task did not end in time' }
}

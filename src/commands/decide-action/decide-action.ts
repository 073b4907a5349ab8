import { actionsProjection, type ActionDoc } from '../../../projections/index.js'
import { findAction } from '../../../projections/queries/actions.js'
import { foldOnto } from '../../../projections/engine/projection.js'
import { Action, decideAction, type Decision, type RecordedProposal } from '../../domain/actions/action.js'
import { NotFoundError } from '../../domain/errors.js'
import { Task } from '../../domain/tasks/task.js'
import type { Infra } from '../../infra/context.js'
import { awaitTaskStreamReadModel } from '../../queries/tasks-caught-up.js'
import { execute, type Issuer } from '../execute.js'

export interface ActionKey {
  readonly accountId: string
  readonly actionId: string
}

/**
 * Approves or rejects an action awaiting approval, as ActionApproved or ActionRejected on the
 * action's own aggregate. The actions read model is the only index from an action id to its
 * task; the proposal itself is then read from the task's events, so a decision never rests on
 * a read model's word. Answers the action as decided.
 */
export async function decideOnAction(infra: Infra, key: ActionKey, command: { decision: Decision; reason: string | null }, issuer: Issuer): Promise<ActionDoc> {
  const doc = await locateAction(infra, key)
  const proposal = await proposalOnLog(infra, key, doc.taskId)
  const { appended } = await execute(infra, Action, { accountId: key.accountId, aggregateId: key.actionId }, (state) => decideAction({ ...command, proposal }, state), issuer)
  return foldOnto<ActionDoc>(actionsProjection, key.actionId, { ...doc, _seq: 0 }, appended) ?? doc
}

/** The action's document, waiting for the projector once should it not be there yet (an action proposed a moment ago). */
async function locateAction(infra: Infra, key: ActionKey): Promise<ActionDoc> {
  const found = await findAction(infra.readModels, key.accountId, key.actionId)
  if (found) return found
  await awaitTaskStreamReadModel(infra, actionsProjection, key.accountId)
  const caughtUp = await findAction(infra.readModels, key.accountId, key.actionId)
  if (!caughtUp) throw new NotFoundError('action not found')
  return caughtUp
}

async function proposalOnLog(infra: Infra, key: ActionKey, taskId: string): Promise<RecordedProposal> {
  const { events } = await infra.events.load(Task, { accountId: key.accountId, aggregateId: taskId })
  for (const event of events) {
    if (event.type === 'TaskActionProposed' && event.data.actionId === key.actionId) return { ...event.data, taskId }
  }
  throw new NotFoundError('action not found')
}

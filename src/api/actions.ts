import type { ActionDoc } from '../../projections/index.js'
import { actionsProjection } from '../../projections/index.js'
import { foldOnto } from '../../projections/engine/projection.js'
import { actionsOfTask, findAction, pendingApprovals } from '../../projections/queries/actions.js'
import { decideOnAction, type ActionKey } from '../commands/decide-action/decide-action.js'
import type { Issuer } from '../commands/execute.js'
import type { Decision } from '../domain/actions/action.js'
import { NotFoundError } from '../domain/errors.js'
import type { AppContext } from '../app-context.js'
import { pageOf, paginationFor } from '../contract/common.js'
import type { PendingApprovalsQuery } from '../contract/actions.js'
import { readTask } from '../queries/read-task.js'
import { awaitTaskStreamReadModel } from '../queries/tasks-caught-up.js'

/** The approval operations of the v1 API, shared by REST (/v1/actions...) and MCP (decide_action...). */
export function actionView(doc: ActionDoc) {
  const { _id, taskId, platform, action, summary, content, status, note, reason, proposedAt, decidedAt } = doc
  return { id: _id, taskId, platform, action, summary, content, status, note, reason, proposedAt, decidedAt }
}
export type ActionView = ReturnType<typeof actionView>

export async function listTaskActions(infra: AppContext, accountId: string, taskId: string) {
  const [task] = await Promise.all([readTask(infra, accountId, taskId), awaitTaskStreamReadModel(infra, actionsProjection, accountId)])
  if (!task) throw new NotFoundError('task not found')
  return { actions: (await actionsOfTask(infra.readModels, accountId, taskId)).map(actionView) }
}

export async function listPendingApprovals(infra: AppContext, accountId: string, query: PendingApprovalsQuery) {
  await awaitTaskStreamReadModel(infra, actionsProjection, accountId)
  const { page, limit } = pageOf(query)
  const { items, total } = await pendingApprovals(infra.readModels, accountId, page, limit)
  return { actions: items.map(actionView), pagination: paginationFor(page, limit, total) }
}

export async function decideActionOf(infra: AppContext, accountId: string, actionId: string, decision: Decision, reason: string | undefined, issuer: Issuer) {
  const key = { accountId, actionId }
  const doc = await locateAction(infra, key)
  const appended = await decideOnAction(infra, key, doc.taskId, { decision, reason: reason ?? null }, issuer)
  const decided = foldOnto<ActionDoc>(actionsProjection, actionId, { ...doc, _seq: 0 }, appended) ?? doc
  return { action: actionView(decided) }
}

/** The action's document, waiting for the projector once should it not be there yet (an action proposed a moment ago). */
async function locateAction(infra: AppContext, key: ActionKey): Promise<ActionDoc> {
  const found = await findAction(infra.readModels, key.accountId, key.actionId)
  if (found) return found
  await awaitTaskStreamReadModel(infra, actionsProjection, key.accountId)
  const caughtUp = await findAction(infra.readModels, key.accountId, key.actionId)
  if (!caughtUp) throw new NotFoundError('action not found')
  return caughtUp
}

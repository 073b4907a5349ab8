import type { ActionDoc } from '../../projections/index.js'
import { actionsProjection } from '../../projections/index.js'
import { actionsOfTask, pendingApprovals } from '../../projections/queries/actions.js'
import { decideOnAction } from '../commands/decide-action/decide-action.js'
import type { Issuer } from '../commands/execute.js'
import type { Decision } from '../domain/actions/action.js'
import { NotFoundError } from '../domain/errors.js'
import type { Infra } from '../infra/context.js'
import { pageOf, paginationFor } from '../http/schemas/common.js'
import type { PendingApprovalsQuery } from '../http/schemas/actions.js'
import { readTask } from '../queries/read-task.js'
import { awaitTaskStreamReadModel } from '../queries/tasks-caught-up.js'

/** The approval operations of the v1 API, shared by REST (/v1/actions...) and MCP (decide_action...). */
export function actionView(doc: ActionDoc) {
  const { _id, taskId, platform, action, summary, content, status, note, reason, proposedAt, decidedAt } = doc
  return { id: _id, taskId, platform, action, summary, content, status, note, reason, proposedAt, decidedAt }
}
export type ActionView = ReturnType<typeof actionView>

export async function listTaskActions(infra: Infra, accountId: string, taskId: string) {
  const [task] = await Promise.all([readTask(infra, accountId, taskId), awaitTaskStreamReadModel(infra, actionsProjection, accountId)])
  if (!task) throw new NotFoundError('task not found')
  return { actions: (await actionsOfTask(infra.readModels, accountId, taskId)).map(actionView) }
}

export async function listPendingApprovals(infra: Infra, accountId: string, query: PendingApprovalsQuery) {
  await awaitTaskStreamReadModel(infra, actionsProjection, accountId)
  const { page, limit } = pageOf(query)
  const { items, total } = await pendingApprovals(infra.readModels, accountId, page, limit)
  return { actions: items.map(actionView), pagination: paginationFor(page, limit, total) }
}

export async function decideActionOf(infra: Infra, accountId: string, actionId: string, decision: Decision, reason: string | undefined, issuer: Issuer) {
  const decided = await decideOnAction(infra, { accountId, actionId }, { decision, reason: reason ?? null }, issuer)
  return { action: actionView(decided) }
}

import type { ReadModels } from '../engine/read-models.js'
import type { Page } from './owned.js'
import { actionsProjection, type ActionDoc } from '../read-models/actions.js'

const actions = (readModels: ReadModels) => readModels.collection<ActionDoc>(actionsProjection)

/** A task's actions in the order its run proposed them (a run proposes a handful). */
export function actionsOfTask(readModels: ReadModels, accountId: string, taskId: string): Promise<ActionDoc[]> {
  return actions(readModels).find({ accountId, taskId }).sort({ proposedAt: 1, _id: 1 }).toArray()
}

/** The account's actions awaiting a decision, newest first. */
export async function pendingApprovals(readModels: ReadModels, accountId: string, page: number, limit: number): Promise<Page<ActionDoc>> {
  const filter = { accountId, status: 'pending_approval' as const }
  const [items, total] = await Promise.all([
    actions(readModels)
      .find(filter)
      .sort({ proposedAt: -1, _id: -1 })
      .skip((page - 1) * limit)
      .limit(limit)
      .toArray(),
    actions(readModels).countDocuments(filter),
  ])
  return { items, total }
}

/** One action of the account; another account's is not found, as for tasks. */
export function findAction(readModels: ReadModels, accountId: string, actionId: string): Promise<ActionDoc | null> {
  return actions(readModels).findOne({ _id: actionId, accountId })
}

import type { ReadModels } from '../engine/read-models.js'
import { sessionsProjection, type SessionDoc } from '../read-models/sessions.js'
import { findOwned } from './owned.js'

export interface Page<T> { readonly items: readonly T[]; readonly total: number }

export async function listSessions(readModels: ReadModels, accountId: string, page: number, limit: number): Promise<Page<SessionDoc>> {
  const sessions = readModels.collection<SessionDoc>(sessionsProjection)
  const [items, total] = await Promise.all([
    sessions.find({ accountId }).sort({ createdAt: -1, _id: -1 }).skip((page - 1) * limit).limit(limit).toArray(),
    sessions.countDocuments({ accountId }),
  ])
  return { items, total }
}

/** Another account's session is reported exactly like a missing one. */
export async function findSession(readModels: ReadModels, accountId: string, sessionId: string): Promise<SessionDoc | null> {
  return findOwned(readModels.collection<SessionDoc>(sessionsProjection), accountId, sessionId)
}

import type { Filter } from 'mongodb'
import type { Stored } from '../engine/projection.js'
import type { ReadModels } from '../engine/read-models.js'
import { sessionsProjection, type SessionDoc } from '../read-models/sessions.js'
import { newestFirst, type Page } from './owned.js'

export function listSessions(readModels: ReadModels, accountId: string, page: number, limit: number): Promise<Page<SessionDoc>> {
  const filter: Filter<Stored<SessionDoc>> = { accountId }
  return newestFirst(readModels.collection<SessionDoc>(sessionsProjection), filter, page, limit)
}

import type { Filter } from 'mongodb'
import type { ReadModels } from '../engine/read-models.js'
import type { Stored } from '../engine/projection.js'
import { tasksProjection, type TaskDoc } from '../read-models/tasks.js'
import { newestFirst, type Page } from './owned.js'

export interface TaskFilter {
  readonly sessionId?: string | undefined
  readonly status?: TaskDoc['status'] | undefined
  readonly agentType?: TaskDoc['agentType'] | undefined
  readonly priority?: TaskDoc['priority'] | undefined
  /** Created at or after (ISO 8601, as stored). */
  readonly createdFrom?: string | undefined
  /** Created before. */
  readonly createdTo?: string | undefined
}

/** `total`, when the caller knows it (from the counts read model), spares counting the matches. */
export function listTasks(readModels: ReadModels, accountId: string, filter: TaskFilter, page: number, limit: number, total?: number): Promise<Page<TaskDoc>> {
  return newestFirst(readModels.collection<TaskDoc>(tasksProjection), taskListQuery(accountId, filter), page, limit, total)
}

/** The MongoDB filter of an account's tasks narrowed by `filter`. */
export function taskListQuery(accountId: string, filter: TaskFilter): Filter<Stored<TaskDoc>> {
  return {
    accountId,
    ...(filter.sessionId ? { sessionId: filter.sessionId } : {}),
    ...(filter.status ? { status: filter.status } : {}),
    ...(filter.agentType ? { agentType: filter.agentType } : {}),
    ...(filter.priority ? { priority: filter.priority } : {}),
    ...(filter.createdFrom || filter.createdTo ? { createdAt: { ...(filter.createdFrom ? { $gte: filter.createdFrom } : {}), ...(filter.createdTo ? { $lt: filter.createdTo } : {}) } } : {}),
  }
}

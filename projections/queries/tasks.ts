import type { Filter } from 'mongodb'
import type { ReadModels } from '../engine/read-models.js'
import type { Stored } from '../engine/projection.js'
import { tasksProjection, type TaskDoc } from '../read-models/tasks.js'
import { newestFirst, type Page } from './owned.js'

export interface TaskFilter {
  readonly sessionId?: string | undefined
  readonly status?: TaskDoc['status'] | undefined
  readonly agentType?: TaskDoc['agentType'] | undefined
}

export function listTasks(readModels: ReadModels, accountId: string, filter: TaskFilter, page: number, limit: number): Promise<Page<TaskDoc>> {
  const query: Filter<Stored<TaskDoc>> = {
    accountId,
    ...(filter.sessionId ? { sessionId: filter.sessionId } : {}),
    ...(filter.status ? { status: filter.status } : {}),
    ...(filter.agentType ? { agentType: filter.agentType } : {}),
  }
  return newestFirst(readModels.collection<TaskDoc>(tasksProjection), query, page, limit)
}

import type { Filter } from 'mongodb'
import type { ReadModels } from '../engine/read-models.js'
import type { Stored } from '../engine/projection.js'
import { tasksProjection, type TaskDoc } from '../read-models/tasks.js'
import { findOwned } from './owned.js'
import type { Page } from './sessions.js'

export interface TaskFilter {
  readonly sessionId?: string | undefined
  readonly status?: TaskDoc['status'] | undefined
  readonly agentType?: TaskDoc['agentType'] | undefined
}

export async function listTasks(readModels: ReadModels, accountId: string, filter: TaskFilter, page: number, limit: number): Promise<Page<TaskDoc>> {
  const tasks = readModels.collection<TaskDoc>(tasksProjection)
  const query: Filter<Stored<TaskDoc>> = {
    accountId,
    ...(filter.sessionId ? { sessionId: filter.sessionId } : {}),
    ...(filter.status ? { status: filter.status } : {}),
    ...(filter.agentType ? { agentType: filter.agentType } : {}),
  }
  const [items, total] = await Promise.all([
    tasks.find(query).sort({ createdAt: -1, _id: -1 }).skip((page - 1) * limit).limit(limit).toArray(),
    tasks.countDocuments(query),
  ])
  return { items, total }
}

export async function findTask(readModels: ReadModels, accountId: string, taskId: string): Promise<TaskDoc | null> {
  return findOwned(readModels.collection<TaskDoc>(tasksProjection), accountId, taskId)
}

import type { Collection, Filter } from 'mongodb'
import type { ReadModels } from '../engine/read-models.js'
import type { Stored } from '../engine/projection.js'
import { tasksProjection, type TaskDoc } from '../read-models/tasks.js'
import { offsetStart } from './task-offset.js'

export interface TaskFilter {
  readonly sessionId?: string | undefined
  readonly scheduleId?: string | undefined
  readonly status?: TaskDoc['status'] | undefined
  readonly agentType?: TaskDoc['agentType'] | undefined
  readonly priority?: TaskDoc['priority'] | undefined
  /** Created at or after (ISO 8601, as stored). */
  readonly createdFrom?: string | undefined
  /** Created before. */
  readonly createdTo?: string | undefined
}

/** Where a page ends in the newest-first order: the last task it holds. */
export interface TaskKey {
  readonly createdAt: string
  readonly id: string
}

/** A page by number (skips what the pages before hold), or the page after a key (skips nothing). */
export interface TaskPageRequest {
  readonly page: number
  readonly limit: number
  readonly after?: TaskKey | undefined
  /**
   * How far to count the matches when no stored count is given: past it the total is "at least
   * countUpTo" (ADR 0043), so that a count reads at most that many index entries.
   */
  readonly countUpTo: number
}

export interface TaskPage {
  readonly items: readonly Stored<TaskDoc>[]
  /** Whether tasks follow the page: the list reads one more than the page holds. */
  readonly more: boolean
  /** How many match: exact, or `countUpTo` when more than that match (`exact` false). */
  readonly total: number
  readonly exact: boolean
}

const NEWEST_FIRST = { createdAt: -1, _id: -1 } as const

/** `knownTotal`, when the caller has it (from the counts read model), spares counting the matches. */
export async function listTasks(readModels: ReadModels, accountId: string, filter: TaskFilter, request: TaskPageRequest, knownTotal?: number): Promise<TaskPage> {
  const collection = readModels.collection<TaskDoc>(tasksProjection)
  const query = taskListQuery(accountId, filter)
  const { limit } = request
  const [found, counted] = await Promise.all([
    pageFrom(collection, query, request).then(({ from, skip }) =>
      collection
        .find(from)
        .sort(NEWEST_FIRST)
        .skip(skip)
        .limit(limit + 1)
        .toArray(),
    ),
    knownTotal === undefined ? boundedCount(collection, query, request.countUpTo) : { total: knownTotal, exact: true },
  ])
  return { items: found.slice(0, limit), more: found.length > limit, ...counted }
}

/** Where the page's reading starts: after a cursor's key, or at an offset found through the index (task-offset.ts). */
async function pageFrom(collection: Collection<Stored<TaskDoc>>, query: Filter<Stored<TaskDoc>>, request: TaskPageRequest) {
  if (request.after) return { from: afterKey(query, request.after), skip: 0 }
  const start = await offsetStart(collection, query, (request.page - 1) * request.limit)
  return { from: start.atOrBefore === undefined ? query : atOrBefore(query, start.atOrBefore), skip: start.skip }
}

/** The MongoDB filter of an account's tasks narrowed by `filter`. */
export function taskListQuery(accountId: string, filter: TaskFilter): Filter<Stored<TaskDoc>> {
  return {
    accountId,
    ...(filter.sessionId ? { sessionId: filter.sessionId } : {}),
    ...(filter.scheduleId ? { scheduleId: filter.scheduleId } : {}),
    ...(filter.status ? { status: filter.status } : {}),
    ...(filter.agentType ? { agentType: filter.agentType } : {}),
    ...(filter.priority ? { priority: filter.priority } : {}),
    ...(filter.createdFrom || filter.createdTo ? { createdAt: { ...(filter.createdFrom ? { $gte: filter.createdFrom } : {}), ...(filter.createdTo ? { $lt: filter.createdTo } : {}) } } : {}),
  }
}

/**
 * The tasks after `key` in the newest-first order. The equalities stay at the top level (the
 * embedded store pushes only those down, ADR 0019) and the range joins any created window, so
 * MongoDB walks the same compound index from the key on.
 */
function afterKey(query: Filter<Stored<TaskDoc>>, key: TaskKey): Filter<Stored<TaskDoc>> {
  const window = typeof query.createdAt === 'object' && query.createdAt !== null ? query.createdAt : {}
  return { ...query, createdAt: { ...window, $lte: key.createdAt }, $or: [{ createdAt: { $lt: key.createdAt } }, { _id: { $lt: key.id } }] }
}

/** The matches created at or before `instant`, the range joined to any created window (as afterKey does). */
function atOrBefore(query: Filter<Stored<TaskDoc>>, instant: string): Filter<Stored<TaskDoc>> {
  const window = typeof query.createdAt === 'object' && query.createdAt !== null ? query.createdAt : {}
  return { ...query, createdAt: { ...window, $lte: instant } }
}

async function boundedCount(collection: Collection<Stored<TaskDoc>>, query: Filter<Stored<TaskDoc>>, bound: number): Promise<{ total: number; exact: boolean }> {
  const counted = await collection.countDocuments(query, { limit: bound + 1 })
  return counted > bound ? { total: bound, exact: false } : { total: counted, exact: true }
}

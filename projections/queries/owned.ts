import type { Collection, Filter, WithId } from 'mongodb'
import type { Stored } from '../engine/projection.js'

export interface Page<T> {
  readonly items: readonly T[]
  readonly total: number
}

/** One page of an account's documents, newest first (`_id` breaks ties), and how many match in all (counted unless given). */
export async function newestFirst<Doc extends { _id: string; accountId: string; createdAt: string }>(
  collection: Collection<Stored<Doc>>,
  filter: Filter<Stored<Doc>>,
  page: number,
  limit: number,
  knownTotal?: number,
): Promise<Page<WithId<Stored<Doc>>>> {
  const [items, total] = await Promise.all([
    collection
      .find(filter)
      .sort({ createdAt: -1, _id: -1 })
      .skip((page - 1) * limit)
      .limit(limit)
      .toArray(),
    knownTotal ?? collection.countDocuments(filter),
  ])
  return { items, total }
}

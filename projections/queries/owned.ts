import type { Collection, Filter, WithId } from 'mongodb'
import type { Stored } from '../engine/projection.js'

export interface Page<T> { readonly items: readonly T[]; readonly total: number }

/** One page of an account's documents, newest first (`_id` breaks ties), and how many match in all. */
export async function newestFirst<Doc extends { _id: string; accountId: string; createdAt: string }>(
  collection: Collection<Stored<Doc>>,
  filter: Filter<Stored<Doc>>,
  page: number,
  limit: number,
): Promise<Page<WithId<Stored<Doc>>>> {
  const [items, total] = await Promise.all([
    collection.find(filter).sort({ createdAt: -1, _id: -1 }).skip((page - 1) * limit).limit(limit).toArray(),
    collection.countDocuments(filter),
  ])
  return { items, total }
}

/**
 * One account's document by id; another account's is reported as missing (invariant 7).
 * The filter is `_id` alone because FerretDB uses its index only then (ADR 0013); the
 * owner is checked here instead.
 */
export async function findOwned<Doc extends { _id: string; accountId: string }>(
  collection: Collection<Stored<Doc>>,
  accountId: string,
  id: string,
): Promise<WithId<Stored<Doc>> | null> {
  const doc = await collection.findOne({ _id: id } as Filter<Stored<Doc>>)
  return doc?.accountId === accountId ? doc : null
}

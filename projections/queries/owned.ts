import type { Collection, Filter, WithId } from 'mongodb'
import type { Stored } from '../engine/projection.js'

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

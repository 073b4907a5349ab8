import type { Collection, Filter } from 'mongodb'
import type { Stored } from '../engine/projection.js'
import type { TaskDoc } from '../read-models/tasks.js'

/**
 * Page N of a task list by offset, found through the index instead of skipped through the
 * documents. A `skip` of 1,000 makes the store read and drop 1,000 whole tasks (on FerretDB each
 * one decoded: ~0.15 ms apiece on a loaded machine, most of the cost of page 41); a count of a
 * creation-time range of the same filter reads index entries only. So the position is found by
 * halving a creation-time window with bounded counts until at most DIRECT_SKIP tasks lie
 * between its newer end and the position; the page is then read from that end, skipping those
 * few. The order is the list's (createdAt, then _id, newest first); a time holds many tasks
 * (ties) at most as many as the final skip.
 */

/** Below this many tasks to skip, skipping them is cheaper than the counts that would avoid it. */
export const DIRECT_SKIP = 100

/** Where page reading starts: the tasks created at or before `atOrBefore` (ISO, ms), newest first, `skip` of them dropped. */
export interface OffsetStart {
  readonly atOrBefore: string | undefined
  readonly skip: number
}

/** Instants as the read model stores them (UTC ISO, ms), so that a creation-time range is a range of strings. */
const iso = (ms: number) => new Date(ms).toISOString()

/**
 * How to read from position `skip` of `query`'s matches (newest first). `query` holds equalities
 * and at most a `createdAt` window (`$gte` / `$lt`, as taskListQuery makes it).
 */
export async function offsetStart(collection: Collection<Stored<TaskDoc>>, query: Filter<Stored<TaskDoc>>, skip: number): Promise<OffsetStart> {
  if (skip <= DIRECT_SKIP) return { atOrBefore: undefined, skip }
  const [newest, oldest] = await Promise.all([edge(collection, query, -1), edge(collection, query, 1)])
  if (newest === undefined || oldest === undefined) return { atOrBefore: undefined, skip }
  // Invariant: `skip - need` tasks are created after `hi`; more than `skip` after `lo`.
  let hi = newest
  let lo = oldest - 1
  let need = skip
  while (need > DIRECT_SKIP && hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2)
    const between = await collection.countDocuments(within(query, mid, hi), { limit: need + 1 })
    if (between <= need) {
      hi = mid
      need -= between
    } else lo = mid
  }
  return { atOrBefore: iso(hi), skip: need }
}

/** The creation time (ms) of the newest (-1) or oldest (1) match. */
async function edge(collection: Collection<Stored<TaskDoc>>, query: Filter<Stored<TaskDoc>>, direction: 1 | -1): Promise<number | undefined> {
  const [doc] = await collection.find(query).sort({ createdAt: direction, _id: direction }).limit(1).toArray()
  const ms = doc ? Date.parse(doc.createdAt) : Number.NaN
  return Number.isFinite(ms) ? ms : undefined
}

/**
 * The matches created after `after` and at or before `atOrBefore` (ms): one range on createdAt
 * (its two ends), which the embedded store counts over an index without reading the tasks.
 */
function within(query: Filter<Stored<TaskDoc>>, after: number, atOrBefore: number): Filter<Stored<TaskDoc>> {
  return { ...query, createdAt: { $gt: iso(after), $lte: iso(atOrBefore) } }
}

/**
 * Updates or replacements per bulk write. FerretDB 1.24 on SQLite hangs on a bulk of 100 or
 * more updates (and its PostgreSQL backend runs out of connections at 50); MongoDB takes any size.
 */
export const MAX_UPDATES_PER_BULK = 40
/** Inserts per insertMany: FerretDB takes them in one SQLite transaction. */
export const MAX_INSERTS_PER_BULK = 500

export function chunks<T>(items: readonly T[], size: number): T[][] {
  const result: T[][] = []
  for (let i = 0; i < items.length; i += size) result.push(items.slice(i, i + size))
  return result
}

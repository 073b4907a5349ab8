/** MongoDB's E11000: an insert or upsert hit an `_id` (or unique index) that is taken. */
export function isDuplicateKey(err: unknown): boolean {
  return typeof err === 'object' && err !== null && 'code' in err && err.code === 11000
}

/**
 * Runs an upsert once more when it lost a creation race: two upserts of a missing document
 * both try to insert it, one fails with E11000, and its second try finds it and updates it.
 */
export async function upsertRacing<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write()
  } catch (err) {
    if (!isDuplicateKey(err)) throw err
    return write()
  }
}

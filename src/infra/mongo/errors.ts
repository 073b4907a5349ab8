/** MongoDB's E11000: an insert or upsert hit an `_id` (or unique index) that is taken. */
export function isDuplicateKey(err: unknown): boolean {
  return typeof err === 'object' && err !== null && 'code' in err && err.code === 11000
}

/**
 * Runs an upsert again when it lost a creation race: two upserts of a missing document both
 * try to insert it, one fails with E11000, and its next try finds it and updates it. A bulk of
 * upserts (`upserts` of them) can lose once per document it shares with a concurrent writer
 * (FerretDB stops an unordered bulk at its first error, so the rest race again on the next
 * try); each lost try means one more of them exists, so `upserts` + 1 tries always suffice.
 */
export async function upsertRacing<T>(write: () => Promise<T>, upserts = 1): Promise<T> {
  for (let lost = 0; ; lost++) {
    try {
      return await write()
    } catch (err) {
      if (!isDuplicateKey(err) || lost >= upserts) throw err
    }
  }
}

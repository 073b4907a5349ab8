/** MongoDB's E11000: an insert or upsert hit an `_id` (or unique index) that is taken. */
export function isDuplicateKey(err: unknown): boolean {
  return typeof err === 'object' && err !== null && 'code' in err && err.code === 11000
}

/**
 * Runs an upsert again when it lost a creation race: two upserts of a missing document both
 * try to insert it, one fails with E11000, and its next try finds it and updates it. A bulk of
 * upserts (`upserts` of them) can lose again on its next try (on FerretDB, two writers of the
 * same 48 new checkpoints did within 40 rounds in each of 3 runs); each lost try means at least
 * one more of its documents exists, so `upserts` + 1 tries always suffice.
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

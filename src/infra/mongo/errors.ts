/** MongoDB's E11000: an insert or upsert hit an `_id` (or unique index) that is taken. */
export function isDuplicateKey(err: unknown): boolean {
  return typeof err === 'object' && err !== null && 'code' in err && err.code === 11000
}

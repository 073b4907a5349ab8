/**
 * Each projection's documents are split by account into a fixed number of partitions, so
 * that several projector processes can share the writes (one active writer per partition,
 * see leases.ts). The count is part of the checkpoint layout: changing it needs a rebuild.
 */
export const PARTITIONS = 8

export const ALL_PARTITIONS: readonly number[] = Array.from({ length: PARTITIONS }, (_, i) => i)

/** FNV-1a of the account id: stable across processes and versions. */
export function partitionOf(accountId: string): number {
  let hash = 0x811c9dc5
  for (let i = 0; i < accountId.length; i++) {
    hash ^= accountId.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193)
  }
  return (hash >>> 0) % PARTITIONS
}

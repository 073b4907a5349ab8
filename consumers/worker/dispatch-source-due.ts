import type { StreamInfo } from '@nats-io/jetstream'

/**
 * Whether a worker asks the dispatch stream's leader to step down (ADR 0069), as a pure
 * decision: the stream's state as read, what the watch remembers and the clocks in; whether to
 * ask and what to remember out.
 */

export interface StepDownLimits {
  /** How long the source may go unheard: this worker's own threshold, spread across workers. */
  readonly silentMs: number
  /** A leader is never asked before it has led this long. */
  readonly leaderSettlesMs: number
  /** At most one ask per worker in this long. */
  readonly askEveryMs: number
}

/** What the watch remembers between two reads of the stream. */
export interface WatchMemory {
  /** The leader whose source has never been heard (`active` -1), and since when it was seen so (monotonic ms). */
  readonly unheard: { readonly leader: string; readonly since: number } | null
  /** When this worker last asked (monotonic ms). */
  readonly askedAt: number
}

export const FRESH_MEMORY: WatchMemory = { unheard: null, askedAt: Number.NEGATIVE_INFINITY }

export interface Clocks {
  /** performance.now(): for how long things have lasted here. */
  readonly monotonicMs: number
  /** Date.now(): to read the server's `leader_since`. */
  readonly wallMs: number
}

/**
 * Due when the source has been silent long enough, on a leader that has led long enough, with a
 * current replica to take over, and this worker's last ask long enough ago. The source's
 * silence is its `active` (ns since last heard) or, never heard (-1), how long this leader has
 * been seen so.
 */
export function stepDownDue(info: Pick<StreamInfo, 'cluster' | 'sources'>, memory: WatchMemory, now: Clocks, limits: StepDownLimits): { readonly due: boolean; readonly memory: WatchMemory } {
  const cluster = info.cluster
  const source = info.sources?.[0]
  // One server: no other replica to take over, and nothing loses the source there but a restart, which sets it up again.
  if (!cluster?.leader || !source || !cluster.replicas?.some((peer) => peer.current && !peer.offline)) return { due: false, memory }
  const unheard = source.active >= 0 ? null : memory.unheard?.leader === cluster.leader ? memory.unheard : { leader: cluster.leader, since: now.monotonicMs }
  const silentMs = unheard === null ? source.active / 1e6 : now.monotonicMs - unheard.since
  const ledForMs = cluster.leader_since ? now.wallMs - Date.parse(cluster.leader_since) : 0
  const due = silentMs >= limits.silentMs && ledForMs >= limits.leaderSettlesMs && now.monotonicMs - memory.askedAt >= limits.askEveryMs
  return { due, memory: { ...memory, unheard } }
}

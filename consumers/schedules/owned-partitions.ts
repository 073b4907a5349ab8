import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import type { Logger } from 'pino'
import type { AppContext } from '../../src/app-context.js'
import { PartitionLeases, partitionOf } from '../../projections/index.js'
import { EveryInTurn } from '../../src/infra/every-in-turn.js'

/** Where schedulers hold their leases: apart from the projectors', with its own TTL (SCHEDULER_LEASE_MS). */
export const SCHEDULER_LEASES = 'mats_scheduler_leases'
const GROUP = 'schedules'
const RENEWALS_PER_TTL = 5

/**
 * The partitions of the schedules this scheduler fires (ADR 0047). Schedules are split by
 * account (`partitionOf`, as the projectors split documents), so that one scheduler keeps an
 * account's tick rate; each partition is a KV lease held with the projectors' mechanism
 * (`PartitionLeases`: compare-and-set, TTL, fair share of the live members, given back on stop).
 * A lease is trusted only until its TTL has run from the start of the last renewal that
 * succeeded: a scheduler cut off from NATS, or paused, stops firing before another takes over.
 */
export class OwnedPartitions {
  private owned = new Set<number>()
  private validUntil = 0
  private readonly renewals: EveryInTurn

  private constructor(
    private readonly leases: PartitionLeases,
    private readonly ttlMs: number,
    private readonly log: Logger,
    /** Told of partitions just taken, whose schedules the scheduler has yet to load. */
    private readonly onGained: (partitions: readonly number[]) => void,
  ) {
    // One renewal at a time: two at once would race on the same leases' revisions.
    this.renewals = new EveryInTurn(() => this.renew(), Math.floor(ttlMs / RENEWALS_PER_TTL))
  }

  /**
   * Joins the schedulers of this database (its read models' name scopes the leases) as a member
   * of its own: the host and process it runs in, for the operator and the tests to tell who
   * holds a partition, and a random part, so that a restarted process is a new member.
   */
  static async open(infra: Pick<AppContext, 'js' | 'config' | 'readModels' | 'log'>, onGained: (partitions: readonly number[]) => void): Promise<OwnedPartitions> {
    const memberId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`
    const ttlMs = infra.config.SCHEDULER_LEASE_MS
    const options = { replicas: infra.config.NATS_STREAM_REPLICAS, ttlMs, bucket: SCHEDULER_LEASES }
    const leases = await PartitionLeases.open(infra.js, infra.readModels.db.databaseName, memberId, options)
    return new OwnedPartitions(leases, ttlMs, infra.log.child({ memberId }), onGained)
  }

  /** Takes its first share, then renews five times a TTL, so that a renewal or two lost to a slow NATS do not lose the leases. */
  start(): Promise<void> {
    return this.renewals.start()
  }

  /** Whether this scheduler fires the schedules of `accountId` now. */
  owns(accountId: string, now = Date.now()): boolean {
    return now < this.validUntil && this.owned.has(partitionOf(accountId))
  }

  /** Gives every lease back, so that the others take over at once rather than after the TTL. */
  async stop(): Promise<void> {
    await this.renewals.stop()
    this.owned.clear()
    await this.leases.releaseAll()
  }

  private async renew(): Promise<void> {
    const startedAt = Date.now()
    try {
      const held = (await this.leases.tick([GROUP])).get(GROUP) ?? []
      // Trust that had lapsed (owns() said no meanwhile, so changes were let go): all are taken anew.
      const lapsed = Date.now() >= this.validUntil
      const gained = held.filter((partition) => lapsed || !this.owned.has(partition))
      const lost = [...this.owned].filter((partition) => !held.includes(partition))
      this.owned = new Set(held)
      this.validUntil = startedAt + this.ttlMs
      if (gained.length > 0 || lost.length > 0) this.log.info({ partitions: held, gained, lost }, 'scheduler: firing the schedules of these partitions')
      if (gained.length > 0) this.onGained(gained)
    } catch (err) {
      // NATS out of reach: what it held is trusted until validUntil, then taken over by others.
      this.log.warn({ err }, 'scheduler: could not renew its partition leases')
    }
  }
}

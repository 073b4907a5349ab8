import type { JetStreamClient } from '@nats-io/jetstream'
import type { Logger } from 'pino'
import { PartitionLeases, partitionOf } from '../../projections/index.js'

/** Where schedulers hold their leases: apart from the projectors', with its own TTL (SCHEDULER_LEASE_MS). */
export const SCHEDULER_LEASES = 'mats_scheduler_leases'
const GROUP = 'schedules'

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
  private timer: NodeJS.Timeout | undefined
  private renewing: Promise<void> = Promise.resolve()

  private constructor(
    private readonly leases: PartitionLeases,
    private readonly ttlMs: number,
    private readonly log: Logger,
    /** Told of partitions just taken, whose schedules the scheduler has yet to load. */
    private readonly onGained: (partitions: readonly number[]) => void,
  ) {}

  static async open(
    js: JetStreamClient,
    scope: { readonly database: string; readonly memberId: string },
    options: { readonly replicas: number; readonly ttlMs: number },
    log: Logger,
    onGained: (partitions: readonly number[]) => void,
  ): Promise<OwnedPartitions> {
    const leases = await PartitionLeases.open(js, scope.database, scope.memberId, { ...options, bucket: SCHEDULER_LEASES })
    return new OwnedPartitions(leases, options.ttlMs, log, onGained)
  }

  async start(): Promise<void> {
    await this.renew()
    this.timer = setInterval(
      () => {
        this.renewing = this.renewing.then(() => this.renew())
      },
      Math.floor(this.ttlMs / 5),
    )
  }

  /** Whether this scheduler fires the schedules of `accountId` now. */
  owns(accountId: string, now = Date.now()): boolean {
    return now < this.validUntil && this.owned.has(partitionOf(accountId))
  }

  /** Gives every lease back, so that the others take over at once rather than after the TTL. */
  async stop(): Promise<void> {
    clearInterval(this.timer)
    await this.renewing
    this.owned.clear()
    await this.leases.releaseAll()
  }

  private async renew(): Promise<void> {
    const startedAt = Date.now()
    try {
      const held = (await this.leases.tick([GROUP])).get(GROUP) ?? []
      const gained = held.filter((partition) => !this.owned.has(partition))
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

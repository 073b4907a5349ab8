import type { AppContext } from '../../src/app-context.js'
import { settleWithin } from '../../src/infra/deadline.js'
import { FollowedSchedules } from './followed-schedules.js'
import { OwnedPartitions } from './owned-partitions.js'
import { ScheduleRefresh } from './schedule-refresh.js'
import { TickFiring } from './tick-firing.js'

export interface SchedulerOptions {
  /** How often a change learnt mid-tick or a refresh that failed is tried again (SCHEDULER_REFRESH_MS). */
  readonly refreshMs: number
  /** How often due ticks are looked for. */
  readonly loopMs: number
  /** Batches of ticks decided at once in this process (each holds an atomic batch slot while it appends). */
  readonly concurrency: number
}

/** How long stopping waits to give the leases back before leaving them to expire. */
const GIVE_BACK_MS = 2000

/**
 * The scheduler role: fires the ticks of the schedules in the partitions it holds leases on.
 * Several may run: each fires its share of the partitions (ADR 0047), and the schedule's guard
 * stores each tick once should two hold a partition for a moment (ADR 0039). Three parts, each
 * on its own timer: the leases (`OwnedPartitions`), which schedules to follow
 * (`FollowedSchedules`, kept up to date by `ScheduleRefresh` from the schedules' lifecycle
 * events, and read whole from the read model when a partition is gained, ADR 0053), and
 * the firing loop (`TickFiring`, every `loopMs`).
 */
export class Scheduler {
  private readonly followed: FollowedSchedules
  private readonly firing: TickFiring
  private partitions: OwnedPartitions | null = null
  private readonly refresh: ScheduleRefresh
  private timers: NodeJS.Timeout[] = []

  constructor(
    private readonly infra: AppContext,
    private readonly options: SchedulerOptions,
  ) {
    const owns = (accountId: string) => this.partitions?.owns(accountId) ?? false
    this.followed = new FollowedSchedules(infra, owns)
    this.firing = new TickFiring(infra, this.followed, owns, options.concurrency)
    this.refresh = new ScheduleRefresh(infra, this.followed)
  }

  /** Takes its share of the partitions and loads their schedules before the loops begin. */
  async start(): Promise<void> {
    this.partitions = await OwnedPartitions.open(this.infra, () => this.refresh.readAllSoon())
    await this.partitions.start()
    this.refresh.readAllSoon()
    await this.refresh.settled()
    this.timers = [setInterval(() => this.refresh.soon(), this.options.refreshMs), setInterval(() => this.firing.fireDue(), this.options.loopMs)]
  }

  /** Lets the decisions under way end, then gives the leases back so that the others take over at once. */
  async stop(): Promise<void> {
    const firingStopped = this.firing.stop()
    for (const timer of this.timers) clearInterval(timer)
    await Promise.allSettled([firingStopped, this.refresh.stop()])
    // NATS gone with us: leases not given back expire after SCHEDULER_LEASE_MS.
    const given = await settleWithin(this.partitions?.stop() ?? Promise.resolve(), GIVE_BACK_MS)
    if (given.outcome !== 'done') this.infra.log.warn({ given }, 'stopping: the scheduler could not give its leases back; they expire')
  }

  /** How many schedules this scheduler follows. */
  get size(): number {
    return this.followed.size
  }
}

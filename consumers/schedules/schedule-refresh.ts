import type { AppContext } from '../../src/app-context.js'
import { forEachAtMost } from './at-most.js'
import type { FollowedSchedules } from './followed-schedules.js'
import { PendingChanges } from './pending-changes.js'
import { ScheduleChanges } from './schedule-changes.js'
import { SpendWarmth } from './spend-warmth.js'

/** Changed schedules loaded or caught up from the log at once. */
const LEARNING_AT_ONCE = 16

/**
 * Keeps the followed schedules up to date (ADR 0053): the schedules whose lifecycle events
 * are read (`ScheduleChanges`) are learnt at once, and the read model is read whole only when
 * a partition is taken, after the follower of changes is set to tell whatever the read model
 * has not applied yet; the accounts' spend is then brought into the spend view (SpendWarmth). One refresh at a time, one queued at most; a refresh reads nothing
 * when nothing is pending.
 */
export class ScheduleRefresh {
  private readonly pending = new PendingChanges()
  private readonly changes: ScheduleChanges
  private readonly spend: SpendWarmth
  private refreshing: Promise<void> = Promise.resolve()
  private queued = false
  private stopped = false

  constructor(
    private readonly infra: AppContext,
    private readonly followed: FollowedSchedules,
  ) {
    this.spend = new SpendWarmth(infra)
    this.changes = new ScheduleChanges(infra, infra.log, (schedule) => {
      this.pending.schedule(schedule)
      this.soon()
    })
  }

  /** A partition just taken: every active schedule is read from the read model, at once. */
  readAllSoon(): void {
    this.pending.readAll()
    this.soon()
  }

  /** Learns what is pending after the refresh under way (also every SCHEDULER_REFRESH_MS: what was put back). */
  soon(): void {
    if (this.queued || this.stopped) return
    this.queued = true
    this.refreshing = this.refreshing
      .then(() => {
        this.queued = false
        return this.refresh()
      })
      .catch((err: unknown) => this.infra.log.warn({ err }, 'scheduler: could not read the schedules'))
  }

  /** Resolves once the refreshes asked for so far have ended. */
  settled(): Promise<void> {
    return this.refreshing
  }

  async stop(): Promise<void> {
    this.stopped = true
    await this.refreshing
    await this.changes.stop()
  }

  private async refresh(): Promise<void> {
    if (this.pending.empty) return this.followed.letGoOfOthers()
    const taken = this.pending.take()
    try {
      const startedAt = Date.now()
      if (taken.readAll) {
        await this.changes.fromReadModel(this.infra.readModels)
        await this.followed.readAll()
      }
      const readAt = Date.now()
      await forEachAtMost(taken.changed, LEARNING_AT_ONCE, async (schedule) => {
        // Mid-tick: learnt after its tick, at a later refresh.
        if (!(await this.followed.learnChange(schedule))) this.pending.schedule(schedule)
      })
      // The accounts followed now, of a partition taken or of a schedule new to this scheduler; those already read are passed over.
      if (taken.readAll || taken.changed.length > 0) await this.spend.warm(this.followed.accounts())
      // What a takeover costs before its ticks are decided: the operator's (and the bench's) measure.
      if (taken.readAll) this.infra.log.info({ schedules: this.followed.size, readMs: readAt - startedAt, spendMs: Date.now() - readAt }, 'scheduler: the schedules of the partitions taken are read')
    } catch (err) {
      this.pending.putBack(taken)
      throw err
    }
    this.followed.letGoOfOthers()
  }
}

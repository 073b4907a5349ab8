import type { ChangedSchedule } from './schedule-changes.js'

/**
 * What the scheduler has yet to learn (ADR 0053): the schedules whose lifecycle events it was
 * told of, and whether it must read the read model whole (a partition newly held). Taken all
 * at once by a refresh, and put back should the refresh fail or the schedule be mid-tick.
 */
export class PendingChanges {
  private changed = new Map<string, ChangedSchedule>()
  private wholeRead = false

  /** A schedule's lifecycle event was read. */
  schedule(schedule: ChangedSchedule): void {
    this.changed.set(schedule.aggregateId, schedule)
  }

  /** Partitions were taken (or a lease lapsed and came back): read every active schedule. */
  readAll(): void {
    this.wholeRead = true
  }

  get empty(): boolean {
    return !this.wholeRead && this.changed.size === 0
  }

  take(): { readonly readAll: boolean; readonly changed: readonly ChangedSchedule[] } {
    const taken = { readAll: this.wholeRead, changed: [...this.changed.values()] }
    this.wholeRead = false
    this.changed = new Map()
    return taken
  }

  /** A refresh that failed: what it took is learnt at the next one. */
  putBack(taken: ReturnType<PendingChanges['take']>): void {
    if (taken.readAll) this.wholeRead = true
    for (const schedule of taken.changed) if (!this.changed.has(schedule.aggregateId)) this.schedule(schedule)
  }
}

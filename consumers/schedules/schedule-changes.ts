import type { Logger } from 'pino'
import { schedulesProjection } from '../../projections/index.js'
import type { ReadModels } from '../../projections/engine/read-models.js'
import { StreamFollower, type FollowingNats } from '../../src/infra/nats/stream-follower.js'
import { eventSubjectParts, eventTypeSubjects, streamOf } from '../../src/infra/nats/subjects.js'

/** The ordered consumer each scheduler holds on MATS_TASKS, as operators see it listed. */
export const SCHEDULE_CHANGES_PREFIX = 'scheduler_changes_'

/**
 * The events that change whether and when a schedule fires. Not its ticks (ScheduleFired,
 * ScheduleTickSkipped): a scheduler learns its own from its appends, and another's from the
 * guard refusing its attempt (ADR 0039), so following them would cost a message per tick.
 */
export const LIFECYCLE_EVENTS = ['ScheduleCreated', 'ScheduleChanged', 'SchedulePaused', 'ScheduleResumed', 'ScheduleDeleted'] as const

export interface ChangedSchedule {
  readonly accountId: string
  readonly aggregateId: string
}

/**
 * Tells the scheduler which schedule changed (ADR 0053): an ordered consumer on the schedules'
 * lifecycle events, headers only (the account and the schedule are in the subject). Begun
 * again from the schedules projection's checkpoint whenever the scheduler reads the read model
 * whole (a partition newly held): a change the read model has not applied yet when it is read
 * is then read here, so that nothing falls between the read and the follower.
 */
export class ScheduleChanges {
  private follower: StreamFollower | null = null
  /** The stream sequence the follower reads next: one begun again from there misses nothing. */
  private next = 0
  private following: Promise<void> = Promise.resolve()

  constructor(
    private readonly nats: FollowingNats,
    private readonly log: Logger,
    private readonly onChange: (schedule: ChangedSchedule) => void,
  ) {}

  /**
   * Makes sure every change after what the read model holds is (or will be) told: from the
   * lowest of the projection's partition checkpoints. Call it before reading the read model.
   */
  async fromReadModel(readModels: ReadModels): Promise<void> {
    const checkpoint = await readModels.checkpoint(schedulesProjection, readModels.generationOf(schedulesProjection))
    this.following = this.following.catch(() => undefined).then(() => this.followFrom(checkpoint + 1))
    await this.following
  }

  async stop(): Promise<void> {
    await this.following.catch(() => undefined)
    await this.follower?.stop()
    this.follower = null
  }

  /** A follower already reading from `from` or before is kept; otherwise one is begun there. */
  private async followFrom(from: number): Promise<void> {
    if (this.follower && this.next <= from) return
    await this.follower?.stop()
    const follower = new StreamFollower(
      {
        stream: streamOf('schedule'),
        filterSubjects: LIFECYCLE_EVENTS.map((type) => eventTypeSubjects('schedule', type)),
        namePrefix: SCHEDULE_CHANGES_PREFIX,
        headersOnly: true,
        name: 'scheduler changes',
      },
      (msg) => {
        // A follower replaced meanwhile may still hand over what it had: told twice is harmless.
        if (follower === this.follower) this.next = msg.seq + 1
        const { accountId, aggregateId } = eventSubjectParts(msg.subject)
        if (accountId && aggregateId) this.onChange({ accountId, aggregateId })
      },
      this.log,
    )
    this.follower = follower
    this.next = Math.max(1, from)
    await follower.listenFrom(this.nats, this.next)
  }
}

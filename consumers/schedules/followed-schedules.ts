import type { AppContext } from '../../src/app-context.js'
import { activeSchedules, scheduleStateOf, type ScheduleDoc, type Stored } from '../../projections/index.js'
import { nextFireAfter } from '../../src/commands/schedules/fire-times.js'
import type { KnownSchedule } from '../../src/commands/schedules/fire-tick.js'
import { Schedule, type ScheduleState } from '../../src/domain/schedules/schedule.js'
import { forEachAtMost } from './at-most.js'
import type { ChangedSchedule } from './schedule-changes.js'

/** A schedule this scheduler fires, as it last knew it. */
export interface Followed {
  known: KnownSchedule
  /** The next tick, computed when the schedule changed: the firing loop only compares times. */
  next: Date | null
  /** Its ticks are being decided: a refresh does not reload it meanwhile (the decision brings it up to date). */
  busy: boolean
  /** After a failure (NATS out of reach), not before this. */
  retryAt: number
}

/** Documents of the read model a round trip. */
const PAGE = 1000
/** Schedules loaded or caught up from the log at once, of those their documents do not show whole (ADR 0053). */
const LEARNING_AT_ONCE = 16

type ActiveSchedule = Stored<ScheduleDoc>

/**
 * The active schedules of the partitions this scheduler owns (ADR 0047). The read model says
 * which schedules exist and what each is: a schedule is taken from its document, state and
 * `_seq` as the version its next tick is guarded by (ADR 0061); a document behind the log
 * costs that tick one refused append and a catch-up from the log, never a second tick. A
 * lifecycle event read (ScheduleChanges) is learnt from the log.
 */
export class FollowedSchedules {
  private readonly entries = new Map<string, Followed>()
  /**
   * No entry is due before this (ms): the firing loop looks at the entries only from then on,
   * not every pass (10,000 idle schedules cost about 1 s of CPU a minute in that look, ADR
   * 0053). Zero whenever an entry may have changed.
   */
  private scanFrom = 0

  constructor(
    private readonly infra: { readonly readModels: AppContext['readModels']; readonly events: Pick<AppContext['events'], 'load' | 'catchUp'> },
    /** Whether this scheduler fires the schedules of `accountId` now (it holds the partition's lease). */
    private readonly owns: (accountId: string) => boolean,
  ) {}

  get size(): number {
    return this.entries.size
  }

  /** Brings the followed schedules in line with the read model's active ones of the owned partitions (a partition taken). */
  async readAll(): Promise<void> {
    const seen = await this.followActive()
    await this.letGoOfTheRest(seen)
  }

  /** A schedule whose lifecycle event was read (ADR 0053), learnt from the log; false when it is mid-tick (to learn later). */
  async learnChange(schedule: ChangedSchedule): Promise<boolean> {
    if (!this.owns(schedule.accountId)) return true
    const entry = this.entries.get(schedule.aggregateId)
    if (!entry) await this.follow(schedule)
    else if (entry.busy) return false
    else await this.learn(entry)
    return true
  }

  /** The accounts of the followed schedules. */
  accounts(): Set<string> {
    return new Set(Array.from(this.entries.values(), (entry) => entry.known.key.accountId))
  }

  /** Schedules of partitions another scheduler holds now. */
  letGoOfOthers(): void {
    for (const [id, entry] of this.entries) if (!this.owns(entry.known.key.accountId)) this.entries.delete(id)
  }

  /** An entry may be due sooner than the loop thought (a decision ended). */
  lookAgain(): void {
    this.scanFrom = 0
  }

  /** The schedules due at `now` that no decision holds back (busy, retrying), by account; `ready` says which accounts may start. */
  dueByAccount(now: number, ready: (accountId: string) => boolean): Map<string, Followed[]> {
    const due = new Map<string, Followed[]>()
    if (now < this.scanFrom) return due
    this.scanFrom = Number.POSITIVE_INFINITY
    for (const entry of this.entries.values()) {
      const { accountId } = entry.known.key
      // A busy entry is looked at again when its decision ends (lookAgain).
      if (!entry.busy && entry.next) this.scanFrom = Math.min(this.scanFrom, Math.max(entry.next.getTime(), entry.retryAt))
      if (!isDue(entry, now) || !ready(accountId) || !this.owns(accountId)) continue
      const ofAccount = due.get(accountId)
      if (ofAccount) ofAccount.push(entry)
      else due.set(accountId, [entry])
    }
    return due
  }

  /**
   * Keeps what a decision or a read learnt of a schedule, unless it is older than what is known
   * (a read begun before this process's own append ended after it). A decision's outcome stands
   * over what it was decided from (`replacing`) while that is still what is known, even below it:
   * the log behind a document (ADR 0061). Lets go of one that stopped being active or ours.
   */
  remember(known: KnownSchedule, replacing?: KnownSchedule): void {
    const id = known.key.aggregateId
    const current = this.entries.get(id)?.known
    if (current && current !== replacing && known.version < current.version) return
    this.scanFrom = 0
    if (known.state.status !== 'active' || !this.owns(known.key.accountId)) {
      this.entries.delete(id)
      return
    }
    const next = nextFireAfter(known.state.spec, new Date(firesAfter(known.state)))
    const entry = this.entries.get(id)
    if (!entry) this.entries.set(id, { known, next, busy: false, retryAt: 0 })
    else Object.assign(entry, { known, next })
  }

  /** Takes the active schedules new to this scheduler, and those that moved, from the read model; returns the ids seen. */
  private async followActive(): Promise<Set<string>> {
    const seen = new Set<string>()
    const fromTheLog: ActiveSchedule[] = []
    for await (const doc of activeSchedules(this.infra.readModels, PAGE)) {
      if (!this.owns(doc.accountId)) continue
      seen.add(doc._id)
      if (!this.takeFromView(doc)) fromTheLog.push(doc)
    }
    await forEachAtMost(fromTheLog, LEARNING_AT_ONCE, async ({ _id, accountId }) => {
      const entry = this.entries.get(_id)
      if (!entry) await this.follow({ accountId, aggregateId: _id })
      else if (!entry.busy) await this.learn(entry)
    })
    return seen
  }

  /** Whether the document settled the schedule (new, moved, or known already); false when it must be read from the log. */
  private takeFromView(doc: ActiveSchedule): boolean {
    const entry = this.entries.get(doc._id)
    // A busy entry's decision brings it up to date; one the document does not pass is up to date.
    if (entry && (entry.busy || doc._seq <= entry.known.version)) return true
    const state = scheduleStateOf(doc)
    if (!state) return false
    this.remember({ key: { accountId: doc.accountId, aggregateId: doc._id }, state, version: doc._seq })
    return true
  }

  /** Of another scheduler's partition now: let go. Paused or deleted in the read model: learn it from the log before letting go. */
  private async letGoOfTheRest(seen: ReadonlySet<string>): Promise<void> {
    for (const [id, entry] of this.entries) {
      if (!this.owns(entry.known.key.accountId)) this.entries.delete(id)
      else if (!seen.has(id) && !entry.busy) await this.learn(entry)
    }
  }

  private async follow(key: KnownSchedule['key']): Promise<void> {
    const loaded = await this.infra.events.load(Schedule, key)
    this.remember({ key, state: loaded.state, version: loaded.version })
  }

  private async learn(entry: Followed): Promise<void> {
    this.remember({ key: entry.known.key, ...(await this.infra.events.catchUp(Schedule, entry.known.key, entry.known)) })
  }
}

function isDue(entry: Followed, now: number): boolean {
  return !entry.busy && entry.next !== null && entry.next.getTime() <= now && entry.retryAt <= now
}

/** The instant the next tick comes after: when the schedule became active, or its last tick, whichever is later. */
function firesAfter(state: Exclude<ScheduleState, { status: 'absent' }>): number {
  return Math.max(Date.parse(state.activeFrom), state.lastTick ? Date.parse(state.lastTick) : 0)
}

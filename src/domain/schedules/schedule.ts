import { createHash } from 'node:crypto'
import { NotFoundError } from '../errors.js'
import type { EventData } from '../events/common.js'
import type * as schemas from '../events/schedules.js'
import type { Aggregate, EventDraft } from '../message.js'
import { durationMs } from './durations.js'

export const OVERLAP_POLICIES = ['skip', 'allow'] as const
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number]
export const SKIP_REASONS = ['overlap', 'budget_exhausted', 'rate_limited', 'session_missing', 'outside_catchup_window'] as const
export type SkipReason = (typeof SKIP_REASONS)[number]

export type ScheduleCreated = EventDraft<'ScheduleCreated', EventData<typeof schemas.ScheduleCreatedData>>
export type ScheduleChanged = EventDraft<'ScheduleChanged', EventData<typeof schemas.ScheduleChangedData>>
export type SchedulePaused = EventDraft<'SchedulePaused', EventData<typeof schemas.SchedulePausedData>>
export type ScheduleResumed = EventDraft<'ScheduleResumed', EventData<typeof schemas.ScheduleResumedData>>
export type ScheduleDeleted = EventDraft<'ScheduleDeleted', EventData<typeof schemas.ScheduleDeletedData>>
/** A tick created its task, stored in the same atomic batch as the task's TaskCreated. */
export type ScheduleFired = EventDraft<'ScheduleFired', EventData<typeof schemas.ScheduleFiredData>>
export type ScheduleTickSkipped = EventDraft<'ScheduleTickSkipped', EventData<typeof schemas.ScheduleTickSkippedData>>
export type ScheduleEvent = ScheduleCreated | ScheduleChanged | SchedulePaused | ScheduleResumed | ScheduleDeleted | ScheduleFired | ScheduleTickSkipped

/** What a schedule creates and when (without `activeFrom`, which the decisions stamp). */
export type ScheduleSpec = Omit<ScheduleChanged['data'], 'activeFrom'>

export type ScheduleState =
  | { readonly status: 'absent' }
  | {
      readonly status: 'active' | 'paused' | 'deleted'
      readonly spec: ScheduleSpec
      /** Ticks at or before it are not due (created, timing changed, resumed). */
      readonly activeFrom: string
      /** The latest tick fired or skipped: no tick at or before it is decided again. */
      readonly lastTick: string | null
      /** The task of the latest fired tick: what overlap `skip` waits for. */
      readonly lastTaskId: string | null
    }

type Live = Exclude<ScheduleState, { status: 'absent' }>

const specOf = ({ activeFrom: _, ...spec }: ScheduleChanged['data']): ScheduleSpec => spec

export const Schedule: Aggregate<ScheduleState, ScheduleEvent> = {
  category: 'schedule',
  initialState: { status: 'absent' },
  versions: { ScheduleCreated: 1, ScheduleChanged: 1, SchedulePaused: 1, ScheduleResumed: 1, ScheduleDeleted: 1, ScheduleFired: 1, ScheduleTickSkipped: 1 },
  evolve(state, event) {
    if (event.type === 'ScheduleCreated') {
      const { paused, ...rest } = event.data
      return { status: paused ? 'paused' : 'active', spec: specOf(rest), activeFrom: rest.activeFrom, lastTick: null, lastTaskId: null }
    }
    if (state.status === 'absent') return state
    switch (event.type) {
      case 'ScheduleChanged':
        return { ...state, spec: specOf(event.data), activeFrom: event.data.activeFrom }
      case 'SchedulePaused':
        return { ...state, status: 'paused' }
      case 'ScheduleResumed':
        return { ...state, status: 'active', activeFrom: event.data.activeFrom }
      case 'ScheduleDeleted':
        return { ...state, status: 'deleted' }
      case 'ScheduleFired':
        return { ...state, lastTick: event.data.scheduledFor, lastTaskId: event.data.taskId }
      case 'ScheduleTickSkipped':
        return { ...state, lastTick: event.data.scheduledFor }
    }
  },
}

export function decideCreateSchedule(command: ScheduleSpec & { readonly paused: boolean; readonly now: Date }, state: ScheduleState): ScheduleEvent[] {
  if (state.status !== 'absent') return []
  const { now, ...data } = command
  return [{ type: 'ScheduleCreated', data: { ...data, activeFrom: now.toISOString() } }]
}

/** The schedule, or 404: a deleted one is gone for its owner too. */
export function requireLive(state: ScheduleState): Live {
  if (state.status === 'absent' || state.status === 'deleted') throw new NotFoundError('schedule not found')
  return state
}

/**
 * A change of any fields, pausing or resuming. A change of when it fires (cron, every,
 * timezone) and a resumption start the schedule afresh from now: ticks missed before are
 * not caught up.
 */
export function decideChangeSchedule(command: { readonly changes: Partial<ScheduleSpec>; readonly paused?: boolean; readonly now: Date }, state: ScheduleState): ScheduleEvent[] {
  const live = requireLive(state)
  const now = command.now.toISOString()
  const spec: ScheduleSpec = { ...live.spec, ...command.changes }
  const events: ScheduleEvent[] = []
  if (JSON.stringify(spec) !== JSON.stringify(live.spec)) {
    const timingChanged = spec.cron !== live.spec.cron || spec.every !== live.spec.every || spec.timezone !== live.spec.timezone
    events.push({ type: 'ScheduleChanged', data: { ...spec, activeFrom: timingChanged ? now : live.activeFrom } })
  }
  if (command.paused === true && live.status === 'active') events.push({ type: 'SchedulePaused', data: {} })
  if (command.paused === false && live.status === 'paused') events.push({ type: 'ScheduleResumed', data: { activeFrom: now } })
  return events
}

export function decideDeleteSchedule(state: ScheduleState): ScheduleEvent[] {
  requireLive(state)
  return [{ type: 'ScheduleDeleted', data: {} }]
}

/** Whether a tick is one to decide at all: an active schedule's, after its start and its last decided tick. */
export function isDue(state: ScheduleState, scheduledFor: Date): state is Live & { readonly status: 'active' } {
  if (state.status !== 'active') return false
  if (scheduledFor.getTime() <= Date.parse(state.activeFrom)) return false
  return state.lastTick === null || scheduledFor.getTime() > Date.parse(state.lastTick)
}

/** Whether a tick due at `scheduledFor` comes too late at `now` to fire. */
export function isPastCatchup(state: Live, scheduledFor: Date, now: Date): boolean {
  const window = durationMs(state.spec.catchupWindow) ?? 0
  return now.getTime() - scheduledFor.getTime() > window
}

/** Whether overlap `skip` holds this tick back, given the status of the schedule's previous task. */
export function overlaps(state: Live, previousTaskStatus: string | null): boolean {
  return state.spec.overlap === 'skip' && (previousTaskStatus === 'pending' || previousTaskStatus === 'running')
}

export interface Tick {
  readonly scheduledFor: Date
  readonly taskId: string
  /** Why the tick cannot create its task, as the command found the world; null: it can. */
  readonly blocked: SkipReason | null
  /** For outside_catchup_window: how many ticks the record covers. */
  readonly missedTicks?: number
}

/**
 * A tick's decision: nothing when it is not due (paused, deleted, already fired or skipped
 * by another scheduler), else it fires with its task or is skipped with why. The caller
 * stores ScheduleFired in one atomic batch with the task's TaskCreated, guarded by the
 * schedule's version: N schedulers deciding the same tick store it once.
 */
export function decideTick(tick: Tick, state: ScheduleState): ScheduleEvent[] {
  if (!isDue(state, tick.scheduledFor)) return []
  const scheduledFor = tick.scheduledFor.toISOString()
  if (tick.blocked) {
    const missed = tick.blocked === 'outside_catchup_window' && tick.missedTicks ? { missedTicks: tick.missedTicks } : {}
    return [{ type: 'ScheduleTickSkipped', data: { scheduledFor, reason: tick.blocked, ...missed } }]
  }
  return [{ type: 'ScheduleFired', data: { scheduledFor, taskId: tick.taskId } }]
}

/**
 * The id of the task a tick creates: the same for every scheduler deciding the tick, so two
 * that both get past the schedule's guard would still collide on the task's (a UUID v8 of
 * the schedule and the tick).
 */
export function tickTaskId(scheduleId: string, scheduledFor: Date): string {
  const hex = createHash('sha256').update(`${scheduleId}\n${scheduledFor.toISOString()}`).digest('hex')
  const variant = ((Number.parseInt(hex.slice(16, 17), 16) & 0x3) | 0x8).toString(16)
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`
}

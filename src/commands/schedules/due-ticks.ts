import type { ScheduleState } from '../../domain/schedules/schedule.js'
import { durationMs } from '../../domain/schedules/durations.js'
import { nextFireAfter } from './fire-times.js'

/** The ticks a scheduler has to decide now, oldest first. */
export interface DueTicks {
  /** The latest of the ticks missed by more than the catch-up window, and how many there were; recorded once as skipped. */
  readonly missed: { readonly scheduledFor: Date; readonly count: number } | null
  /** The ticks still within the catch-up window, to fire (or skip for another reason). */
  readonly due: readonly Date[]
}

/** How many missed ticks are walked one by one to count them (a 1s schedule down a day is 86,400). */
const MAX_WALK = 100_000

/**
 * The ticks of an active schedule after its start and its last decided tick, up to `now`:
 * those older than the catch-up window folded into one skip, the others each to decide.
 */
export function dueTicks(state: ScheduleState, now: Date): DueTicks {
  if (state.status !== 'active') return { missed: null, due: [] }
  const from = Math.max(Date.parse(state.activeFrom), state.lastTick ? Date.parse(state.lastTick) : 0)
  const oldest = now.getTime() - (durationMs(state.spec.catchupWindow) ?? 0)
  let missedCount = 0
  let latestMissed: Date | null = null
  let at = nextFireAfter(state.spec, new Date(from))
  for (let walked = 0; at && at.getTime() < oldest; walked++) {
    if (walked >= MAX_WALK) {
      // Counted far enough: jump to the first tick inside the window.
      at = nextFireAfter(state.spec, new Date(oldest - 1))
      break
    }
    missedCount++
    latestMissed = at
    at = nextFireAfter(state.spec, at)
  }
  const due: Date[] = []
  for (; at && at.getTime() <= now.getTime(); at = nextFireAfter(state.spec, at)) due.push(at)
  return { missed: latestMissed ? { scheduledFor: latestMissed, count: missedCount } : null, due }
}

import { Cron } from 'croner'
import { InvalidInputError } from '../../domain/errors.js'
import { durationMs } from '../../domain/schedules/durations.js'

/** When a schedule fires: a cron expression read in a time zone, or an interval. */
export interface Timing {
  readonly cron: string | null
  readonly every: string | null
  readonly timezone: string
}

const MIN_EVERY_MS = 1000
const crons = new Map<string, Cron>()

/** One parsed expression per expression and zone: ten thousand schedules share a few. */
function cronOf(expression: string, timezone: string): Cron {
  const key = `${timezone} ${expression}`
  let cron = crons.get(key)
  if (!cron) {
    cron = new Cron(expression, { timezone, paused: true })
    crons.set(key, cron)
  }
  return cron
}

/**
 * The first fire time strictly after `after`. An interval's ticks are aligned on the Unix
 * epoch (as Temporal's are), so every scheduler computes the same ones; a cron expression is
 * read in its time zone, so 09:00 Europe/Berlin is 09:00 there on both sides of a DST change.
 */
export function nextFireAfter(timing: Timing, after: Date): Date | null {
  if (timing.every !== null) {
    const ms = durationMs(timing.every)
    if (ms === null) return null
    return new Date((Math.floor(after.getTime() / ms) + 1) * ms)
  }
  if (timing.cron === null) return null
  return cronOf(timing.cron, timing.timezone).nextRun(after)
}

/** The next `count` fire times after `after`. */
export function nextFireTimes(timing: Timing, after: Date, count: number): Date[] {
  const times: Date[] = []
  let at: Date | null = after
  while (times.length < count && at) {
    at = nextFireAfter(timing, at)
    if (at) times.push(at)
  }
  return times
}

/**
 * A timing as a caller sent it, checked field by field: exactly one of `cron` and `every`,
 * `every` at least 1s, `cron` of 5 or 6 fields that croner reads, `timezone` an IANA name.
 */
export function checkTiming(timing: { readonly cron?: string | null | undefined; readonly every?: string | null | undefined; readonly timezone: string }): Timing {
  const cron = timing.cron ?? null
  const every = timing.every ?? null
  if ((cron === null) === (every === null)) throw new InvalidInputError('exactly one of cron and every must be set')
  if (!isTimeZone(timing.timezone)) throw new InvalidInputError(`timezone must be an IANA time zone name such as Europe/Berlin (got "${timing.timezone}")`)
  if (every !== null) {
    const ms = durationMs(every)
    if (ms === null || ms < MIN_EVERY_MS) throw new InvalidInputError('every must be a duration of at least 1s such as "90s", "15m", "1h" or "1d"')
  }
  if (cron !== null) checkCron(cron, timing.timezone)
  return { cron, every, timezone: timing.timezone }
}

export function checkCatchupWindow(catchupWindow: string): string {
  if (durationMs(catchupWindow) === null) throw new InvalidInputError('catchupWindow must be a duration such as "90s", "15m", "1h" or "1d"')
  return catchupWindow
}

function checkCron(cron: string, timezone: string): void {
  const fields = cron.trim().split(/\s+/u).length
  if (fields !== 5 && fields !== 6) throw new InvalidInputError(`cron must have 5 or 6 fields (got ${fields})`)
  try {
    if (cronOf(cron, timezone).nextRun() === null) throw new InvalidInputError('cron never fires')
  } catch (err) {
    if (err instanceof InvalidInputError) throw err
    throw new InvalidInputError(`cron is not a valid expression: ${err instanceof Error ? err.message : String(err)}`)
  }
}

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: name })
    return name.length > 0
  } catch {
    return false
  }
}

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
/** Fire times remembered per expression and zone; past it, the memo starts afresh. */
const MEMO_LIMIT = 64

interface ParsedCron {
  readonly cron: Cron
  /** Fire times already computed, by the instant (ms) they follow. */
  readonly next: Map<number, Date | null>
}

const crons = new Map<string, ParsedCron>()

/** One parsed expression per expression and zone: ten thousand schedules share a few. */
function cronOf(expression: string, timezone: string): ParsedCron {
  const key = `${timezone} ${expression}`
  let parsed = crons.get(key)
  if (!parsed) {
    parsed = { cron: new Cron(expression, { timezone, paused: true }), next: new Map() }
    crons.set(key, parsed)
  }
  return parsed
}

/**
 * croner's next run after `after`, computed once per expression, zone and instant: the
 * schedules that share an expression tick together, so at each tick the scheduler asks the
 * same few questions once per schedule (the tick, the next one); croner's walk through the
 * calendar in the zone took 7.7 % of the scheduler's busy time at a tick (bench:schedules, 300
 * schedules on `* * * * *`), the same answer computed some 900 times.
 */
function nextRunOf(parsed: ParsedCron, after: Date): Date | null {
  const at = after.getTime()
  let next = parsed.next.get(at)
  if (next === undefined) {
    if (parsed.next.size >= MEMO_LIMIT) parsed.next.clear()
    next = parsed.cron.nextRun(after)
    parsed.next.set(at, next)
  }
  return next === null ? null : new Date(next.getTime())
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
  return nextRunOf(cronOf(timing.cron, timing.timezone), after)
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
    if (cronOf(cron, timezone).cron.nextRun() === null) throw new InvalidInputError('cron never fires')
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

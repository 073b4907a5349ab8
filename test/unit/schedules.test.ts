import t from 'tap'
import { aScheduleSpec } from '../helpers/mothers.js'
import { dueTicks } from '../../src/commands/schedules/due-ticks.js'
import { checkTiming, nextFireAfter, nextFireTimes } from '../../src/commands/schedules/fire-times.js'
import { InvalidInputError } from '../../src/domain/errors.js'
import { decideChangeSchedule, decideTick, Schedule, tickTaskId, type ScheduleEvent, type ScheduleSpec, type ScheduleState } from '../../src/domain/schedules/schedule.js'

const spec = aScheduleSpec
const fold = (events: ScheduleEvent[]): ScheduleState => events.reduce(Schedule.evolve, Schedule.initialState)
const created = (timing: Partial<ScheduleSpec>, activeFrom: string): ScheduleEvent => ({ type: 'ScheduleCreated', data: { ...spec(timing), activeFrom, paused: false } })

t.test('given a daily 09:00 Europe/Berlin schedule, when the clocks change, then it fires at 09:00 local on both sides', async (t) => {
  const timing = { cron: '0 9 * * *', every: null, timezone: 'Europe/Berlin' }
  // Spring forward: Sunday 2027-03-28 at 02:00 CET becomes 03:00 CEST.
  const spring = nextFireTimes(timing, new Date('2027-03-26T12:00:00Z'), 3).map((at) => at.toISOString())
  t.same(spring, ['2027-03-27T08:00:00.000Z', '2027-03-28T07:00:00.000Z', '2027-03-29T07:00:00.000Z'], 'UTC+1 before, UTC+2 after')
  // Fall back: Sunday 2026-10-25 at 03:00 CEST becomes 02:00 CET.
  const autumn = nextFireTimes(timing, new Date('2026-10-23T12:00:00Z'), 3).map((at) => at.toISOString())
  t.same(autumn, ['2026-10-24T07:00:00.000Z', '2026-10-25T08:00:00.000Z', '2026-10-26T08:00:00.000Z'], 'UTC+2 before, UTC+1 after')
  for (const at of [...spring, ...autumn]) {
    t.equal(new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', hour: '2-digit', minute: '2-digit' }).format(new Date(at)), '09:00', `${at} is 09:00 in Berlin`)
  }
})

t.test('given an interval, when its next fire time is asked, then ticks fall on multiples of it since the epoch', async (t) => {
  const timing = { cron: null, every: '15m', timezone: 'UTC' }
  t.equal(nextFireAfter(timing, new Date('2026-11-26T10:07:13Z'))?.toISOString(), '2026-11-26T10:15:00.000Z')
  t.equal(nextFireAfter(timing, new Date('2026-11-26T10:15:00Z'))?.toISOString(), '2026-11-26T10:30:00.000Z', 'strictly after')
  t.equal(nextFireAfter({ cron: '*/10 * * * * *', every: null, timezone: 'UTC' }, new Date('2026-11-26T10:00:05Z'))?.toISOString(), '2026-11-26T10:00:10.000Z', '6 fields: seconds first')
})

t.test('given many schedules sharing a cron expression, when each asks its next fire time, then each gets the same answer as its own Date, across zones and instants', async (t) => {
  const everyMinute = { cron: '* * * * *', every: null, timezone: 'UTC' }
  const after = new Date('2026-11-26T10:07:00Z')
  // When
  const first = nextFireAfter(everyMinute, after)
  const again = nextFireAfter(everyMinute, new Date(after.getTime()))
  // Then
  t.equal(first?.toISOString(), '2026-11-26T10:08:00.000Z')
  t.equal(again?.toISOString(), '2026-11-26T10:08:00.000Z', 'the remembered answer')
  t.not(first, again, 'a Date of its own: one caller changing it cannot move another schedule')
  first?.setUTCFullYear(2000)
  t.equal(nextFireAfter(everyMinute, after)?.toISOString(), '2026-11-26T10:08:00.000Z')
  t.equal(nextFireAfter(everyMinute, new Date('2026-11-26T10:08:00Z'))?.toISOString(), '2026-11-26T10:09:00.000Z', 'another instant, another answer')
  const berlin = { cron: '0 9 * * *', every: null, timezone: 'Europe/Berlin' }
  const tokyo = { cron: '0 9 * * *', every: null, timezone: 'Asia/Tokyo' }
  t.equal(nextFireAfter(berlin, after)?.toISOString(), '2026-11-27T08:00:00.000Z', 'the same expression in another zone is its own')
  t.equal(nextFireAfter(tokyo, after)?.toISOString(), '2026-11-27T00:00:00.000Z')
  for (let minute = 0; minute < 200; minute++) nextFireAfter(everyMinute, new Date(after.getTime() + minute * 60_000))
  t.equal(nextFireAfter(everyMinute, after)?.toISOString(), '2026-11-26T10:08:00.000Z', 'right after the memo started afresh')
})

t.test('given timings a caller sent, when checked, then each fault names its field', async (t) => {
  t.throws(() => checkTiming({ cron: '0 9 * * *', every: '1h', timezone: 'UTC' }), new InvalidInputError('exactly one of cron and every must be set'))
  t.throws(() => checkTiming({ every: '1h', timezone: 'Nowhere/Else' }), /timezone/)
  t.throws(() => checkTiming({ cron: '0 9 * *', timezone: 'UTC' }), /cron must have 5 or 6 fields/)
  t.throws(() => checkTiming({ cron: '0 25 * * *', timezone: 'UTC' }), /cron is not a valid expression/)
  t.same(checkTiming({ every: '1s', timezone: 'UTC' }), { cron: null, every: '1s', timezone: 'UTC' })
})

t.test('given a schedule down for five minutes with a one-minute catch-up window, when its due ticks are planned, then the missed ones fold into one skip and the others fire', async (t) => {
  const state = fold([created({ every: '1m', catchupWindow: '90s' }, '2026-11-26T10:00:30Z')])
  // When
  const { missed, due } = dueTicks(state, new Date('2026-11-26T10:05:10Z'))
  // Then: 10:01..10:03 are older than 90 s; 10:04 and 10:05 are within it.
  t.same(missed && { scheduledFor: missed.scheduledFor.toISOString(), count: missed.count }, { scheduledFor: '2026-11-26T10:03:00.000Z', count: 3 })
  t.same(
    due.map((at) => at.toISOString()),
    ['2026-11-26T10:04:00.000Z', '2026-11-26T10:05:00.000Z'],
  )
  const after = fold([created({ every: '1m' }, '2026-11-26T10:00:30Z'), { type: 'ScheduleFired', data: { scheduledFor: '2026-11-26T10:05:00.000Z', taskId: tickTaskId('s', new Date(0)) } }])
  t.same(dueTicks(after, new Date('2026-11-26T10:05:10Z')), { missed: null, due: [] }, 'nothing after the last decided tick')
})

t.test('given a tick already decided, when any scheduler decides it again, then nothing is decided', async (t) => {
  const scheduledFor = new Date('2026-11-26T10:01:00Z')
  const state = fold([created({}, '2026-11-26T10:00:00Z')])
  const taskId = tickTaskId('schedule-1', scheduledFor)
  const first = decideTick({ scheduledFor, taskId, blocked: null }, state)
  t.same(first, [{ type: 'ScheduleFired', data: { scheduledFor: scheduledFor.toISOString(), taskId } }])
  const fired = fold([created({}, '2026-11-26T10:00:00Z'), ...first])
  t.same(decideTick({ scheduledFor, taskId, blocked: null }, fired), [], 'the same tick')
  t.same(decideTick({ scheduledFor: new Date('2026-11-26T10:00:00Z'), taskId, blocked: 'overlap' }, fired), [], 'an earlier one')
  t.same(decideTick({ scheduledFor: new Date('2026-11-26T10:00:00Z'), taskId, blocked: null }, state), [], 'one at the creation is not due')
  t.equal(tickTaskId('schedule-1', scheduledFor), taskId, 'every scheduler names the same task')
  t.match(taskId, /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/u)
  const paused = fold([created({}, '2026-11-26T10:00:00Z'), { type: 'SchedulePaused', data: {} }])
  t.same(decideTick({ scheduledFor, taskId, blocked: null }, paused), [], 'a paused schedule fires nothing')
})

t.test('given a change of timing or a resumption, when decided, then the schedule starts afresh from now', async (t) => {
  const state = fold([created({}, '2026-11-26T10:00:00Z'), { type: 'SchedulePaused', data: {} }])
  const now = new Date('2026-11-26T12:00:00Z')
  t.same(decideChangeSchedule({ changes: {}, paused: false, now }, state), [{ type: 'ScheduleResumed', data: { activeFrom: now.toISOString() } }])
  const changed = decideChangeSchedule({ changes: { every: '5m' }, now }, state)
  t.match(changed, [{ type: 'ScheduleChanged', data: { every: '5m', activeFrom: now.toISOString() } }])
  t.match(decideChangeSchedule({ changes: { instruction: 'Audit the shop' }, now }, state), [{ type: 'ScheduleChanged', data: { activeFrom: '2026-11-26T10:00:00Z' } }], 'a new brief keeps the start')
  t.same(decideChangeSchedule({ changes: { every: '1m' }, now }, state), [], 'no change, no event')
})

import t from 'tap'
import { startService } from '../../src/service.js'
import { aCaller, aSessionBody } from '../helpers/mothers.js'
import { createSchedule, firedOf, scheduleEvents, skippedOf } from '../helpers/schedules.js'
import { startServers } from '../helpers/servers.js'
import { startTestService, testConfig, testLog } from '../helpers/service.js'
import { until } from '../helpers/wait.js'

const brief = (sessionId: string, extra: Record<string, unknown>) => ({ sessionId, agentType: 'seo', instruction: 'Draft the daily social post', overlap: 'allow', ...extra })

t.test('given no scheduler for 30 s, when one starts, then the ticks older than the catch-up window are recorded once as skipped and the others fire once each', async (t) => {
  const servers = await startServers(t)
  const service = await startTestService(t, servers, { roles: ['api', 'projector'] })
  const caller = await aCaller(service.infra, service.url, { monthlyBudgetUsd: 1000 })
  const sessionId = (await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
  const schedule = (await createSchedule(caller, brief(sessionId, { every: '1s', catchupWindow: '15s' }))).body.schedule
  // A window wide enough for a scheduler's start on a loaded machine.
  const downUntil = Date.now() + 30_000
  await until('30 s without a scheduler', () => Date.now() > downUntil, 60_000, 250)
  t.same(firedOf(await scheduleEvents(service.infra, caller.account.id, schedule.id)), [], 'nothing fires without a scheduler')

  // When
  const startedAt = Date.now()
  const scheduler = await startService(testConfig(servers), testLog(), new Set(['scheduler'] as const))
  t.teardown(() => scheduler.stop())

  // Then
  const history = await until(
    'the missed ticks recorded and the next one fired',
    async () => {
      const found = await scheduleEvents(service.infra, caller.account.id, schedule.id)
      return firedOf(found).some((event) => Date.parse((event.data as { scheduledFor: string }).scheduledFor) > startedAt) && found
    },
    60_000,
  )
  const [skip, ...moreSkips] = skippedOf(history, 'outside_catchup_window')
  t.equal(moreSkips.length, 0, 'one record for the ticks missed')
  const missed = skip?.data as { scheduledFor: string; missedTicks: number } | undefined
  t.ok(missed && missed.missedTicks >= 10, `it covers ${missed?.missedTicks} ticks`)
  const decisions = history.filter((event) => event.type === 'ScheduleFired' || event.type === 'ScheduleTickSkipped')
  const ticks = decisions.map((event) => (event.data as { scheduledFor: string }).scheduledFor)
  t.equal(new Set(ticks).size, ticks.length, 'each tick decided once')
  const caughtUp = firedOf(history).filter((event) => Date.parse((event.data as { scheduledFor: string }).scheduledFor) <= startedAt)
  t.ok(caughtUp.length >= 1, `${caughtUp.length} ticks of the window fired late, once each`)
  for (const event of caughtUp) t.ok(startedAt - Date.parse((event.data as { scheduledFor: string }).scheduledFor) <= 15_000 + 5_000, 'within the window (with the start of the scheduler)')
})

t.test("given an account's ticks past SCHEDULE_TICKS_PER_MIN, when the next ticks come, then they are skipped as rate_limited", async (t) => {
  const servers = await startServers(t)
  const service = await startTestService(t, servers, { roles: ['api', 'projector', 'scheduler'], env: { SCHEDULE_TICKS_PER_MIN: '1' } })
  const caller = await aCaller(service.infra, service.url, { monthlyBudgetUsd: 1000 })
  const sessionId = (await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
  // When
  const schedule = (await createSchedule(caller, brief(sessionId, { every: '1s' }))).body.schedule
  // Then
  const history = await until(
    'two ticks skipped as rate_limited',
    async () => {
      const found = await scheduleEvents(service.infra, caller.account.id, schedule.id)
      return skippedOf(found, 'rate_limited').length >= 2 && found
    },
    30_000,
  )
  t.equal(firedOf(history).length, 1, 'one tick a minute fires')
})

import t from 'tap'
import { collectOutput, exited, startMats } from '../helpers/processes.js'
import { streamEvents } from '../helpers/event-log.js'
import { aCaller, aSessionBody } from '../helpers/mothers.js'
import { createSchedule, firedOf, leaseHolderPid, refusedTicks, scheduleEvents } from '../helpers/schedules.js'
import { startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'
import { until } from '../helpers/wait.js'

const TICKS = 125

t.test('given three scheduler processes, the one firing killed with SIGKILL mid-run, when a 1s schedule ticks 125 times, then each tick creates exactly one task, attempted about once', async (t) => {
  const servers = await startServers(t)
  const service = await startTestService(t, servers, { roles: ['api', 'projector'] })
  const caller = await aCaller(service.infra, service.url, { monthlyBudgetUsd: 1000 })
  const sessionId = (await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
  const env = { NATS_URL: servers.natsUrl, MONGODB_URL: servers.mongoUrl, SCHEDULER_REFRESH_MS: '500' }
  const schedulers = await Promise.all([0, 1, 2].map(() => startMats(t, ['--role', 'scheduler'], env)))
  const outputs = schedulers.map((scheduler) => collectOutput(scheduler))

  // When
  const schedule = (await createSchedule(caller, { sessionId, agentType: 'seo', instruction: 'Draft the daily social post', every: '1s', overlap: 'allow' })).body.schedule
  const fired = (n: number) => async () => firedOf(await scheduleEvents(service.infra, caller.account.id, schedule.id)).length >= n
  await until('40 ticks fired', fired(40), 120_000, 200)
  // The scheduler holding the lease of the schedule's partition: the one whose death matters.
  const holder = await leaseHolderPid(service.infra, caller.account.id)
  const doomed = schedulers.find((scheduler) => scheduler.pid === holder)
  const survivors = schedulers.filter((scheduler) => scheduler !== doomed)
  if (!doomed) throw new Error(`no scheduler holds the schedule's partition (holder pid ${holder})`)
  const killedAt = firedOf(await scheduleEvents(service.infra, caller.account.id, schedule.id)).length
  doomed.kill('SIGKILL')
  await exited(doomed)
  await until(`${TICKS} ticks fired`, fired(TICKS), 300_000, 500)
  t.equal((await caller.api.request('DELETE', `/v1/schedules/${schedule.id}`)).status, 204)
  for (const survivor of survivors) survivor.kill('SIGTERM')
  await Promise.all(survivors.map(exited))

  // Then
  const decisions = (await scheduleEvents(service.infra, caller.account.id, schedule.id)).filter((event) => event.type === 'ScheduleFired' || event.type === 'ScheduleTickSkipped')
  const ticks = decisions.map((event) => (event.data as { scheduledFor: string }).scheduledFor)
  t.equal(new Set(ticks).size, ticks.length, `each of ${ticks.length} ticks decided once`)
  const times = ticks.map(Date.parse).sort((a, b) => a - b)
  const gaps = times.slice(1).filter((time, i) => time - (times[i] ?? 0) !== 1000)
  t.same(gaps, [], 'no tick left undecided between the first and the last')
  const created = (await streamEvents(service.infra, 'MATS_TASKS')).filter((event) => event.type === 'TaskCreated' && (event.data as { scheduleId?: string }).scheduleId === schedule.id)
  const perTick = new Map<string, number>()
  for (const event of created) {
    const tick = (event.data as { scheduledFor: string }).scheduledFor
    perTick.set(tick, (perTick.get(tick) ?? 0) + 1)
  }
  const firedTicks = firedOf(decisions).map((event) => (event.data as { scheduledFor: string }).scheduledFor)
  t.ok(firedTicks.length >= TICKS, `${firedTicks.length} ticks fired`)
  t.same(
    firedTicks.filter((tick) => perTick.get(tick) !== 1),
    [],
    'every fired tick has exactly one task',
  )
  t.equal(created.length, firedTicks.length, 'and no task without its tick')

  // With a lease per partition one scheduler attempts each tick: the guard refuses only the attempts of a takeover.
  const refused = refusedTicks(outputs.map((output) => output.text()).join('\n'), schedule.id)
  const sortedTicks = [...ticks].sort()
  const beforeKill = new Set(sortedTicks.slice(0, killedAt))
  const refusedBeforeKill = refused.filter((tick) => beforeKill.has(tick)).length
  const attemptsPerTick = (beforeKill.size + refusedBeforeKill) / beforeKill.size
  t.ok(attemptsPerTick <= 1.2, `while all three lived, ${attemptsPerTick.toFixed(2)} attempts per tick (${refusedBeforeKill} refused by the guard over ${beforeKill.size} ticks), not 3`)
  t.comment(`attempts: ${ticks.length} ticks decided, ${refused.length} attempts refused by the guard in all (${refusedBeforeKill} while all three lived)`)
})

import t from 'tap'
import type { RecordedEvent } from '../../src/domain/message.js'
import { startService, type RunningService } from '../../src/service.js'
import { restartNode, startClusterServers, streamLeader } from '../helpers/cluster.js'
import { streamEvents } from '../helpers/event-log.js'
import { aCaller, aSessionBody, type Caller } from '../helpers/mothers.js'
import { exited } from '../helpers/processes.js'
import { createSchedule, firedOf, scheduleEvents, skippedOf, tickAttempts, uncoveredTicks } from '../helpers/schedules.js'
import { startTestService, testConfig, testLog } from '../helpers/service.js'
import { until } from '../helpers/wait.js'

/** Every stream and bucket replicated three times; leases short, so that a takeover fits in the run. */
const R3 = { NATS_STREAM_REPLICAS: '3', SCHEDULER_REFRESH_MS: '500', SCHEDULER_LEASE_MS: '3000' }
const ACCOUNTS = 3

t.test('a 3-node R3 cluster, the tasks stream leader killed and restarted while 1s schedules fire: each tick fired once or skipped with its reason, one task per fired tick', async (t) => {
  // Given: three nodes, an API with the projector, three schedulers each on its own connection, a 1s schedule in each of three accounts
  const servers = await startClusterServers(t)
  const service = await startTestService(t, servers, { env: R3, roles: ['api', 'projector'] })
  const urls = servers.cluster.nodes.map((node) => node.url)
  const schedulers: RunningService[] = []
  for (let i = 0; i < 3; i++) {
    const natsUrl = [...urls.slice(i), ...urls.slice(0, i)].join(',')
    const scheduler = await startService(testConfig({ ...servers, natsUrl }, R3), testLog(), new Set(['scheduler'] as const))
    schedulers.push(scheduler)
    t.teardown(() => stopOnce(scheduler))
  }
  const schedules: { caller: Caller; id: string }[] = []
  for (let i = 0; i < ACCOUNTS; i++) {
    const caller = await aCaller(service.infra, service.url, { monthlyBudgetUsd: 100_000 })
    const sessionId = (await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
    const body = { sessionId, agentType: 'seo', instruction: `Post the hourly update of account ${i}`, every: '1s', overlap: 'allow' }
    schedules.push({ caller, id: (await createSchedule(caller, body)).body.schedule.id })
  }
  // Right after an election a read may time out: that is a moment to wait, not a result.
  const decided = async () => Promise.all(schedules.map(async ({ caller, id }) => decisionsOf(await scheduleEvents(service.infra, caller.account.id, id)).length)).catch(() => null)
  /** The most decisions of a schedule once each has `n`: a failed read is not an answer. */
  const eachDecided = (n: number) => async () => {
    const counts = await decided()
    return counts?.every((count) => count >= n) ? Math.max(...counts) : undefined
  }
  await until('10 ticks of each schedule', eachDecided(10), 90_000, 250)

  // When: the tasks stream's leader is killed, the schedules go on, and it comes back
  const leader = await streamLeader(service.infra, servers.cluster, 'MATS_TASKS')
  const atKill = await until('the decisions so far', eachDecided(0), 30_000, 200)
  leader.process.kill('SIGKILL')
  await exited(leader.process)
  const atRestart = await until('10 more ticks of each schedule with a node down', eachDecided(atKill + 10), 90_000, 250)
  await restartNode(t, leader)
  await until('10 more ticks of each schedule after the restart', eachDecided(atRestart + 10), 90_000, 250)
  for (const { caller, id } of schedules) t.equal((await caller.api.request('DELETE', `/v1/schedules/${id}`)).status, 204)
  await Promise.all(schedulers.map(stopOnce))

  // Then
  const tasks = await until('the log to be readable', () => streamEvents(service.infra, 'MATS_TASKS').catch(() => undefined), 30_000, 200)
  const created = tasks.filter((event) => event.type === 'TaskCreated')
  let ticksInAll = 0
  for (const { caller, id } of schedules) {
    const events = await scheduleEvents(service.infra, caller.account.id, id)
    const decisions = decisionsOf(events)
    const ticks = decisions.map(tickOf)
    ticksInAll += ticks.length
    t.equal(new Set(ticks).size, ticks.length, `schedule ${id}: each of ${ticks.length} ticks decided once`)
    t.same(uncoveredTicks(decisions, 1000), [], `schedule ${id}: every tick from the first to the last fired or recorded skipped`)
    const perTick = new Map<string, number>()
    for (const event of created.filter((event) => (event.data as { scheduleId?: string }).scheduleId === id)) perTick.set(tickOf(event), (perTick.get(tickOf(event)) ?? 0) + 1)
    const fired = firedOf(events).map(tickOf)
    t.same(
      fired.filter((tick) => perTick.get(tick) !== 1),
      [],
      `schedule ${id}: each of ${fired.length} fired ticks has exactly one task`,
    )
    t.equal(
      [...perTick.values()].reduce((a, b) => a + b, 0),
      fired.length,
      `schedule ${id}: no task without its tick`,
    )
    const reasons = skippedOf(events).map((event) => (event.data as { reason: string }).reason)
    t.comment(`schedule ${id}: ${fired.length} fired, ${reasons.length} skipped (${reasons.join(', ') || 'none'})`)
  }
  const attempts = await Promise.all(schedulers.map((scheduler) => tickAttempts(scheduler.infra.metrics)))
  const refused = attempts.reduce((sum, a) => sum + a.refused, 0)
  const stored = attempts.reduce((sum, a) => sum + a.stored, 0)
  t.comment(`node ${leader.name} killed after ${atKill} ticks, restarted after ${atRestart}; ${ticksInAll} ticks, ${stored} attempts stored, ${refused} refused by the guard`)
  t.ok(stored + refused <= ticksInAll * 1.5, `about one attempt per tick (${stored + refused} for ${ticksInAll}), not one per scheduler`)
})

const stopped = new WeakMap<RunningService, Promise<void>>()
/** Stopped in the test, and at its teardown should it fail before. */
function stopOnce(service: RunningService): Promise<void> {
  const stopping = stopped.get(service) ?? service.stop()
  stopped.set(service, stopping)
  return stopping
}

const decisionsOf = (events: readonly RecordedEvent[]) => events.filter((event) => event.type === 'ScheduleFired' || event.type === 'ScheduleTickSkipped')
const tickOf = (event: RecordedEvent) => (event.data as { scheduledFor: string }).scheduledFor

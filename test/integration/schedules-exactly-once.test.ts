import t from 'tap'
import type { RecordedEvent } from '../../src/domain/events/index.js'
import { streamEvents } from '../helpers/event-log.js'
import { aCaller, aSessionBody } from '../helpers/mothers.js'
import { collectOutput, exited, startMats } from '../helpers/processes.js'
import { createSchedule, firedOf, leaseHolderPid, refusedTicks, scheduleEvents } from '../helpers/schedules.js'
import { startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'
import { until } from '../helpers/wait.js'

/** Ticks decided in all, over SCHEDULES schedules of one account: one partition, one lease holder. */
const TICKS = 125
const SCHEDULES = 4

const scheduledFor = (event: RecordedEvent) => (event.data as { scheduledFor: string }).scheduledFor
/** SCHEDULER_LEASE_MS's default: a dead scheduler's partitions are taken over after it. */
const LEASE_MS = 5000
/** Past the lease, for the survivors' next renewal, the takeover's reads and the decision, on a loaded machine. */
const TAKEOVER_SLACK_MS = 25_000

t.test(
  `given three scheduler processes, the one firing killed with SIGKILL mid-run, when ${SCHEDULES} 1s schedules tick ${TICKS} times in all, then each tick creates exactly one task, attempted about once`,
  async (t) => {
    const servers = await startServers(t)
    const service = await startTestService(t, servers, { roles: ['api', 'projector'] })
    const caller = await aCaller(service.infra, service.url, { monthlyBudgetUsd: 1000 })
    const sessionId = (await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
    const env = { NATS_URL: servers.natsUrl, MONGODB_URL: servers.mongoUrl, SCHEDULER_REFRESH_MS: '500' }
    const schedulers = await Promise.all([0, 1, 2].map(() => startMats(t, ['--role', 'scheduler'], env)))
    const outputs = schedulers.map((scheduler) => collectOutput(scheduler))

    // When
    const body = (n: number) => ({ sessionId, agentType: 'seo', instruction: `Draft social post ${n} of the day`, every: '1s', overlap: 'allow' })
    const schedules = await Promise.all([...Array(SCHEDULES).keys()].map(async (n) => (await createSchedule(caller, body(n))).body.schedule))
    const decisionsOf = async (id: string) => (await scheduleEvents(service.infra, caller.account.id, id)).filter((event) => event.type === 'ScheduleFired' || event.type === 'ScheduleTickSkipped')
    const firedInAll = async () => (await Promise.all(schedules.map(async ({ id }) => firedOf(await scheduleEvents(service.infra, caller.account.id, id)).length))).reduce((a, b) => a + b, 0)
    await until('40 ticks fired', async () => (await firedInAll()) >= 40, 120_000, 200)
    // The scheduler holding the lease of the schedules' partition: the one whose death matters.
    const holder = await leaseHolderPid(service.infra, caller.account.id)
    const doomed = schedulers.find((scheduler) => scheduler.pid === holder)
    const survivors = schedulers.filter((scheduler) => scheduler !== doomed)
    if (!doomed) throw new Error(`no scheduler holds the schedules' partition (holder pid ${holder})`)
    const decidedBeforeKill = new Map(await Promise.all(schedules.map(async ({ id }) => [id, (await decisionsOf(id)).map(scheduledFor).sort()] as const)))
    const killedAt = Date.now()
    doomed.kill('SIGKILL')
    await exited(doomed)
    await until(`${TICKS} ticks fired`, async () => (await firedInAll()) >= TICKS, 300_000, 500)
    for (const { id } of schedules) t.equal((await caller.api.request('DELETE', `/v1/schedules/${id}`)).status, 204)
    for (const survivor of survivors) survivor.kill('SIGTERM')
    await Promise.all(survivors.map(exited))

    // Then
    const created = (await streamEvents(service.infra, 'MATS_TASKS')).filter((event) => event.type === 'TaskCreated')
    const logs = outputs.map((output) => output.text()).join('\n')
    let firedTotal = 0
    let latestAfterKill = 0
    let beforeKill = 0
    let refusedBeforeKill = 0
    for (const { id } of schedules) {
      const decisions = await decisionsOf(id)
      const ticks = decisions.map(scheduledFor)
      t.equal(new Set(ticks).size, ticks.length, `${id}: each of ${ticks.length} ticks decided once`)
      const times = ticks.map(Date.parse).sort((a, b) => a - b)
      t.same(
        times.slice(1).filter((time, i) => time - (times[i] ?? 0) !== 1000),
        [],
        `${id}: no tick left undecided between the first and the last`,
      )

      const perTick = new Map<string, number>()
      for (const event of created.filter((event) => (event.data as { scheduleId?: string }).scheduleId === id)) perTick.set(scheduledFor(event), (perTick.get(scheduledFor(event)) ?? 0) + 1)
      const firedTicks = firedOf(decisions).map(scheduledFor)
      t.same(
        firedTicks.filter((tick) => perTick.get(tick) !== 1),
        [],
        `${id}: every one of ${firedTicks.length} fired ticks has exactly one task`,
      )
      t.equal(
        [...perTick.values()].reduce((a, b) => a + b, 0),
        firedTicks.length,
        `${id}: and no task without its tick`,
      )
      firedTotal += firedTicks.length

      // How late the ticks due once the scheduler was dead were decided (the decision's time against the tick's).
      for (const event of decisions.filter((event) => Date.parse(scheduledFor(event)) > killedAt)) {
        latestAfterKill = Math.max(latestAfterKill, Date.parse(event.occurredAt) - Date.parse(scheduledFor(event)))
      }
      const before = new Set(decidedBeforeKill.get(id))
      beforeKill += before.size
      refusedBeforeKill += refusedTicks(logs, id).filter((tick) => before.has(tick)).length
    }
    t.ok(firedTotal >= TICKS, `${firedTotal} ticks fired in all`)
    t.ok(latestAfterKill <= LEASE_MS + TAKEOVER_SLACK_MS, `the ticks due after the kill decided at most ${latestAfterKill} ms late (the lease ${LEASE_MS} ms, then the takeover)`)

    // With a lease per partition one scheduler attempts each tick: the guard refuses only the attempts of a takeover.
    const attemptsPerTick = (beforeKill + refusedBeforeKill) / beforeKill
    t.ok(attemptsPerTick <= 1.2, `while all three lived, ${attemptsPerTick.toFixed(2)} attempts per tick (${refusedBeforeKill} refused by the guard over ${beforeKill} ticks), not 3`)
  },
)

import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { startMongo, startNats, type LocalServer } from '../../src/infra/local/servers.js'
import { startService } from '../../src/service.js'
import { aCaller, aSessionBody } from '../helpers/mothers.js'
import { describeStatuses, postTasks } from '../helpers/load.js'
import type { ApiClient } from '../helpers/http.js'
import { startTestService, testConfig, testLog } from '../helpers/service.js'
import { lifecycleViolations, taskHistories } from '../helpers/task-log.js'
import { until, untilDrained } from '../helpers/wait.js'
import { starvationMeter } from '../helpers/starvation.js'
import { startServers } from '../helpers/servers.js'
import { startTcpProxy } from '../helpers/tcp-proxy.js'
import { spawnMats } from '../helpers/processes.js'
import { monthToDate } from '../../src/commands/create-task/budget.js'
import { accountDispatchConsumer } from '../helpers/dispatch.js'

/**
 * Invariant 11: while NATS or MongoDB is out of reach, requests are answered (503 with
 * Retry-After within 2 s, never 500), and nothing acknowledged is lost or dropped after it ran.
 */

interface Restartable {
  current: LocalServer
  /** Kills the server (SIGKILL), waits `downMs`, starts it again on the same port and data. */
  outage(downMs: number): Promise<void>
}

async function restartable(t: Test, start: (port?: number) => Promise<LocalServer>): Promise<Restartable> {
  const server: Restartable = {
    current: await start(),
    async outage(downMs) {
      const { port } = server.current
      server.current.process.kill('SIGKILL')
      await new Promise((resolve) => server.current.process.once('exit', resolve))
      await new Promise((resolve) => setTimeout(resolve, downMs))
      server.current = await start(port)
    },
  }
  t.teardown(() => server.current.stop())
  return server
}

async function restartableServers(t: Test) {
  const dir = await mkdtemp(join(tmpdir(), 'mats-outage-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const nats = await restartable(t, (port) => startNats({ dataDir: join(dir, 'nats'), ...(port ? { port } : {}) }))
  const mongo = await restartable(t, (port) => startMongo({ dataDir: join(dir, 'mongo'), database: 'mats', ...(port ? { port } : {}) }))
  return { nats, mongo, servers: { natsUrl: nats.current.url, mongoUrl: mongo.current.url, nats: nats.current, mongo: mongo.current, dir } }
}

/** One timed request: its status and how long it took. */
async function timed(api: ApiClient, path: string): Promise<{ status: number; ms: number; retryAfter: string | null }> {
  const sentAt = Date.now()
  // The answer during the outage is what is measured: a 503 is not sent again.
  const res = await api.withoutRetry().get(path)
  return { status: res.status, ms: Date.now() - sentAt, retryAfter: res.headers.get('retry-after') }
}

/** An ack wait longer than the outage, as docs/operations.md recommends: a worker cut off for less is not judged lost. */
const ENV = { OFFLINE_AGENT_LATENCY_MS: '1500', WORKER_ACK_WAIT_MS: '5000', WORKER_CONCURRENCY: '16' }

t.test('nats-server killed for 3 s under load, two workers alive: every request answered, no 500, nothing lost, no live worker judged lost', async (t) => {
  const { nats, servers } = await restartableServers(t)
  const service = await startTestService(t, servers, { env: ENV })
  const second = await startService(testConfig(servers, ENV), testLog(), new Set(['worker'] as const))
  t.teardown(() => second.stop())
  const caller = await aCaller(service.infra, service.url, { monthlyBudgetUsd: 100_000 })
  const sessionId = (await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id

  let done = false
  let acknowledged = 0
  const load = postTasks(caller.api, sessionId, {
    inFlight: 10,
    label: 'outage',
    done: () => done,
    onAcknowledged: (n) => {
      acknowledged = n
    },
  })
  await until('40 tasks to be acknowledged, some of them running', () => acknowledged >= 40, 20_000)
  const starvation = starvationMeter(t)
  const outage = nats.outage(3000)
  await new Promise((resolve) => setTimeout(resolve, 1000))
  const during = await Promise.all([timed(caller.api, '/v1/tasks'), timed(caller.api, `/v1/sessions`), timed(caller.api, '/readyz')])
  await outage
  await until('the service to be ready again', async () => (await caller.api.withoutRetry().get('/readyz')).status === 200, 20_000, 100)
  await new Promise((resolve) => setTimeout(resolve, 2000))
  done = true
  const posted = await load

  for (const answer of during) t.ok(answer.status === 503 || answer.status === 200, `during the outage: ${answer.status} in ${answer.ms} ms`)
  starvation.within(t, Math.max(...during.map((a) => a.ms)), 2000, `answered within 2 s (${during.map((a) => a.ms).join(', ')} ms)`)
  t.ok(
    during.filter((answer) => answer.status === 503).every((answer) => answer.retryAfter !== null),
    '503s carry Retry-After',
  )
  t.equal(posted.statuses.get(500) ?? 0, 0, `no 500 (${describeStatuses(posted.statuses)})`)
  t.equal(posted.statuses.get(0) ?? 0, 0, 'every POST was answered')
  starvation.within(t, posted.slowestRefusalMs, 2000, 'refusals came within 2 s (the slowest)')

  // The backlog left when posting stops drains at 32 runs of 1.5 s at a time, several times
  // slower on a loaded machine: what must hold is that it keeps draining to the end.
  const drainingSince = Date.now()
  const histories = await untilDrained('every acknowledged task to end', async () => {
    const histories = await taskHistories(service.infra)
    const open = posted.ids.filter((id) => !['TaskCompleted', 'TaskFailed'].includes(histories.get(id)?.at(-1)?.type ?? ''))
    return { left: open.length, value: histories }
  })
  const drainedMs = Date.now() - drainingSince
  const lostWorkers = posted.ids.filter((id) => (histories.get(id)?.at(-1)?.data as { reason?: string } | undefined)?.reason === 'worker_lost')
  t.same(lostWorkers, [], 'no task of a live worker failed as worker_lost')
  t.same(lifecycleViolations(histories), [], 'no task ran twice or ended twice')
  t.comment(
    `nats outage: ${posted.ids.length} acknowledged (${describeStatuses(posted.statuses)}), slowest refusal ${posted.slowestRefusalMs} ms, ${lostWorkers.length} worker_lost, all ended ${drainedMs} ms after posting stopped`,
  )
})

t.test('MongoDB killed for 4 s under load: POSTs and GET by id go on from the log, lists answer 503 within 2 s, /readyz within 1 s', async (t) => {
  const { mongo, servers } = await restartableServers(t)
  const env = { ...ENV, OFFLINE_AGENT_LATENCY_MS: '0' }
  const service = await startTestService(t, servers, { env })
  const caller = await aCaller(service.infra, service.url, { monthlyBudgetUsd: 100_000 })
  const sessionId = (await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
  const before = await caller.api.post<{ task: { id: string } }>('/v1/tasks', { sessionId, instruction: 'Written before the outage', waitSeconds: 10 })

  let done = false
  const load = postTasks(caller.api, sessionId, { inFlight: 5, label: 'mongo outage', done: () => done })
  const starvation = starvationMeter(t)
  const outage = mongo.outage(4000)
  await new Promise((resolve) => setTimeout(resolve, 1500))
  const [list, one, ready] = await Promise.all([timed(caller.api, '/v1/tasks'), timed(caller.api, `/v1/tasks/${before.body.task.id}`), timed(caller.api, '/readyz')])
  await outage
  done = true
  const posted = await load

  t.equal(list.status, 503, `the list answers 503 in ${list.ms} ms`)
  t.not(list.retryAfter, null, 'with Retry-After')
  starvation.within(t, list.ms, 2000, 'the list refused within 2 s')
  t.equal(one.status, 200, `GET by id is served from the log (${one.ms} ms)`)
  t.equal(ready.status, 503, `/readyz says not ready in ${ready.ms} ms`)
  starvation.within(t, ready.ms, 1000, '/readyz answered within 1 s')
  t.same([...posted.statuses.keys()], [201], `every POST was acknowledged: they need only NATS, and the key was read before (${describeStatuses(posted.statuses)})`)
  await until(
    'the read model to catch up after the outage',
    async () => {
      const res = await caller.api.get<{ pagination: { total: number } }>('/v1/tasks?limit=1')
      return res.status === 200 && res.body.pagination.total === posted.ids.length + 1
    },
    30_000,
    250,
  )
  t.pass('every task written during the outage reached the read model')
  t.comment(`mongo outage: ${describeStatuses(posted.statuses)}, list ${list.status} in ${list.ms} ms, GET by id ${one.status} in ${one.ms} ms, /readyz ${ready.status} in ${ready.ms} ms`)
})

t.test(
  'given a worker cut off from NATS for longer than its ack wait mid-run, when its tasks come back to it, then it keeps its runs: each completes once, none is judged lost, and the cost reaches the budget',
  async (t) => {
    const servers = await startServers(t)
    const service = await startTestService(t, servers, { roles: ['api', 'projector'] })
    const proxy = await startTcpProxy(t, Number(new URL(servers.natsUrl).port))
    const ackWaitMs = 2000
    spawnMats(t, ['start', '--role', 'worker'], { NATS_URL: `nats://127.0.0.1:${proxy.port}`, MONGODB_URL: servers.mongoUrl, OFFLINE_AGENT_LATENCY_MS: '6000', WORKER_ACK_WAIT_MS: String(ackWaitMs) })
    const caller = await aCaller(service.infra, service.url)
    const sessionId = (await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
    const ids: string[] = []
    for (let i = 0; i < 3; i++) ids.push((await caller.api.post<{ task: { id: string } }>('/v1/tasks', { sessionId, instruction: `A six-second audit ${i}` })).body.task.id)
    await until(
      'the three tasks to be running',
      async () => {
        const histories = await taskHistories(service.infra)
        return ids.every((id) => histories.get(id)?.some((e) => e.type === 'TaskStarted'))
      },
      20_000,
      100,
    )

    // When: cut off past the ack wait, so that the server hands the three TaskCreated out again, to this worker.
    proxy.cut()
    await new Promise((resolve) => setTimeout(resolve, ackWaitMs + 1500))
    proxy.restore()

    // Then
    const histories = await until(
      'the three runs to end',
      async () => {
        const histories = await taskHistories(service.infra)
        return ids.every((id) => ['TaskCompleted', 'TaskFailed'].includes(histories.get(id)?.at(-1)?.type ?? '')) && histories
      },
      30_000,
      250,
    )
    const ends = ids.map((id) => histories.get(id)?.at(-1))
    t.same(
      ids.map((id) => histories.get(id)?.map((e) => e.type)),
      ids.map(() => ['TaskCreated', 'TaskStarted', 'TaskCompleted']),
      `each run kept and completed once: none failed worker_lost (${JSON.stringify(ends.map((e) => (e?.type === 'TaskFailed' ? e.data : e?.type)))})`,
    )
    t.same(lifecycleViolations(histories), [])
    const delivered = (await accountDispatchConsumer(service.infra, caller.account.id))?.delivered.consumer_seq ?? 0
    t.ok(delivered > ids.length, `the server handed TaskCreated out again (${delivered} deliveries of ${ids.length} tasks)`)
    const costs = ids.map((id) => (histories.get(id)?.at(-1)?.data as { costMicros: number } | undefined)?.costMicros ?? 0)
    const spend = await until(
      'the spend to count the three',
      async () => {
        const spend = await monthToDate(service.infra, caller.account.id, new Date())
        return spend.reservedMicros === 0 && spend
      },
      10_000,
    )
    t.equal(
      spend.spentMicros,
      costs.reduce((a, b) => a + b, 0),
      `the cost of each run reached the budget (${costs.join(' + ')} micro-USD)`,
    )
    t.comment(
      `worker cut off for ${ackWaitMs + 1500} ms (ack wait ${ackWaitMs} ms): ${delivered} deliveries of ${ids.length} tasks, ${ends.filter((e) => e?.type === 'TaskCompleted').length} completed once, 0 worker_lost`,
    )
  },
)

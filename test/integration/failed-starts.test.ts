import { once } from 'node:events'
import { createServer, type AddressInfo, type Server } from 'node:net'
import t, { type Test } from 'tap'
import { WORKER_CONSUMER } from '../../consumers/worker/worker.js'
import { freePort } from '../../src/infra/local/servers.js'
import { startService } from '../../src/service.js'
import { dispatchConsumers } from '../helpers/dispatch.js'
import { streamEvents } from '../helpers/event-log.js'
import { liveKeys, PROJECTOR_LEASES } from '../helpers/leases.js'
import { aCaller, aSessionBody } from '../helpers/mothers.js'
import { exited, spawnMats } from '../helpers/processes.js'
import { startServers } from '../helpers/servers.js'
import { connectTestInfra, startTestService, testConfig, testLog } from '../helpers/service.js'
import { until } from '../helpers/wait.js'

// A start that fails part-way claims nothing, stops what it had started and exits 1 with one line.
t.setTimeout(300_000)

const servers = await startServers(t)
const env = { NATS_URL: servers.natsUrl, MONGODB_URL: servers.mongoUrl, HOST: '127.0.0.1', PORT: '0' }

// Given a pending task: created through an API process without a worker, which then stops.
const taskId = await aPendingTask(t)
const infra = await connectTestInfra(t, servers)

async function aPendingTask(t: Test): Promise<string> {
  const api = await startTestService(t, servers, { roles: ['api', 'projector'] })
  const caller = await aCaller(api.infra, api.url)
  const session = await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())
  const task = await caller.api.post<{ task: { id: string } }>('/v1/tasks', { sessionId: session.body.session.id, instruction: 'Draft the launch post' })
  if (task.status !== 202 && task.status !== 201) throw new Error(`task not created: ${task.status} ${JSON.stringify(task.body)}`)
  await api.stop()
  return task.body.task.id
}

async function aTakenPort(t: Test): Promise<number> {
  const holder: Server = createServer().listen(0, '127.0.0.1')
  await once(holder, 'listening')
  t.teardown(() => holder.close())
  return (holder.address() as AddressInfo).port
}

/** `mats start` (every role) as an operator runs it; its exit code and its stderr alone. */
async function failedStart(t: Test, overrides: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawnMats(t, ['start'], { ...env, ...overrides })
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  return { code: await exited(child), stderr }
}

/** Nothing was claimed: no dispatch consumer delivered a TaskCreated, the task did not start, no projector lease is held. */
async function assertNothingClaimed(t: Test): Promise<void> {
  const consumers = await dispatchConsumers(infra)
  t.same(
    consumers.filter((c) => c.delivered.stream_seq > 0 || c.num_ack_pending > 0).map((c) => c.name),
    [],
    'no dispatch consumer delivered a TaskCreated, none waits for a worker to acknowledge one',
  )
  t.equal(await infra.jsm.consumers.info('MATS_TASKS', WORKER_CONSUMER).catch(() => null), null, 'nor was the old mats-worker consumer made')
  const started = (await streamEvents(infra, 'MATS_TASKS')).filter((e) => e.aggregateId === taskId && e.type !== 'TaskCreated')
  t.same(
    started.map((e) => e.type),
    [],
    'the task is still only created',
  )
  t.same(await liveKeys(infra, PROJECTOR_LEASES), [], 'no projector lease is held')
}

const ONE_LINE = /^mats: [^\n]+\n$/

t.test('given the API port taken, when mats starts, then it exits 1 with one line naming PORT and has claimed nothing', async (t) => {
  const port = await aTakenPort(t)
  const { code, stderr } = await failedStart(t, { PORT: String(port) })
  t.equal(code, 1)
  t.match(stderr, ONE_LINE, 'one line, no stack')
  t.match(stderr, `mats: port ${port} (PORT) is already in use on 127.0.0.1`)
  await assertNothingClaimed(t)
})

t.test('given a variable with a bad value, when mats starts, then it exits 1 with one line naming it and has claimed nothing', async (t) => {
  const { code, stderr } = await failedStart(t, { WORKER_CONCURRENCY: 'lots' })
  t.equal(code, 1)
  t.match(stderr, ONE_LINE, 'one line, no stack')
  t.match(stderr, /^mats: invalid configuration: WORKER_CONCURRENCY: must be integer \(got "lots"\)$/m)
  await assertNothingClaimed(t)
})

t.test('given the webhooks role alone and no WEBHOOKS_SECRET_KEY, when it starts, then it exits 1 with one line naming the variable', async (t) => {
  const child = spawnMats(t, ['start', '--role', 'webhooks'], env)
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  t.equal(await exited(child), 1)
  t.match(stderr, ONE_LINE, 'one line, no stack')
  t.match(stderr, /^mats: invalid configuration: WEBHOOKS_SECRET_KEY: the webhooks role needs it/)
})

t.test('given no NATS server at NATS_URL, when mats starts, then it exits 1 with one line naming NATS, the URL and the variable', async (t) => {
  const port = await freePort()
  const { code, stderr } = await failedStart(t, { NATS_URL: `nats://127.0.0.1:${port}` })
  t.equal(code, 1)
  t.match(stderr, ONE_LINE, 'one line, no stack')
  t.match(stderr, `mats: cannot reach NATS at nats://127.0.0.1:${port} (NATS_URL): `)
  await assertNothingClaimed(t)
})

t.test('given no MongoDB server at MONGODB_URL, when mats starts, then it exits 1 with one line naming MongoDB, the URL and the variable', async (t) => {
  const port = await freePort()
  const { code, stderr } = await failedStart(t, { MONGODB_URL: `mongodb://127.0.0.1:${port}/mats`, MONGODB_TIMEOUT_MS: '500' })
  t.equal(code, 1)
  t.match(stderr, ONE_LINE, 'one line, no stack')
  t.match(stderr, `mats: cannot reach MongoDB at mongodb://127.0.0.1:${port}/mats (MONGODB_URL): `)
  await assertNothingClaimed(t)
})

t.test('given the API port taken, when the service starts in this process, then it rejects having closed every connection it opened', async (t) => {
  const port = await aTakenPort(t)
  const sockets = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap').length
  const before = sockets()
  await t.rejects(startService(testConfig(servers, { PORT: String(port) }), testLog(), new Set(['api', 'worker', 'projector'])), { code: 'EADDRINUSE' })
  // A closed socket's handle goes once its close callback has run: a moment after close().
  await until('the sockets to close', () => sockets() <= before, 10_000).catch(() => undefined)
  t.equal(sockets(), before, 'no NATS or MongoDB socket is left open')
  await assertNothingClaimed(t)
})

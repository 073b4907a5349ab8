import { randomUUID } from 'node:crypto'
import t from 'tap'
import { Task, type TaskEvent } from '../../src/domain/tasks/task.js'
import { freePort } from '../../src/infra/local/servers.js'
import { LogReader } from '../../src/infra/nats/log-reader.js'
import { accountSubjects } from '../../src/infra/nats/subjects.js'
import { liveConsumers } from '../helpers/live-consumers.js'
import { aCaller, aSessionBody, type Caller } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'
import { openSse, type SseStream } from '../helpers/sse.js'
import { until } from '../helpers/wait.js'

/**
 * Issue 22 (target 5): once waiting clients go, nothing of them is left, in the API process nor on
 * NATS: no place in the live-event hub, no consumer, no subscription, no connection, no timer.
 * Some clients go because their task ended, some go away before (a closed tab, a client's own timeout).
 */

/** Deadlines sized for a loaded machine (2 cores shared by many test runs). */
const RUN_DEADLINE_MS = 120_000
/** Under the waits' own 120 s, so that a wait held to its end does not pass for one that left. */
const LEAVE_DEADLINE_MS = 60_000
const monitor = `127.0.0.1:${await freePort()}`
const servers = await startServers(t, { natsConfig: `http: "${monitor}"` })
// No worker: tasks stay pending until the test ends them, so every client is held live.
const service = await startTestService(t, servers, { roles: ['api', 'projector'], env: { LIVE_EVENTS_IDLE_MS: '0', SSE_MAX_STREAMS_PER_ACCOUNT: '1000' } })
const { infra } = service
const hub = infra.liveEvents

/** The subscriptions nats-server holds for every client connection: the API's own subscriptions, on the server. */
async function subscriptionsOnServer(): Promise<number> {
  await infra.nc.flush()
  const res = await fetch(`http://${monitor}/connz`)
  const { connections } = (await res.json()) as { connections: { subscriptions?: number }[] }
  return connections.reduce((sum, c) => sum + (c.subscriptions ?? 0), 0)
}

function httpConnections(): Promise<number> {
  return new Promise((resolve, reject) => service.server?.server.getConnections((err, count) => (err ? reject(err) : resolve(count))))
}

const timers = (): number => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length

async function aSession(caller: Caller): Promise<string> {
  return (await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
}

/** POST /v1/tasks on a connection of its own, closed once answered, so that an answered client holds nothing. */
function post(caller: Caller, body: Record<string, unknown>, signal?: AbortSignal): Promise<Response> {
  const headers = { authorization: `Bearer ${caller.key.key}`, 'content-type': 'application/json', connection: 'close' }
  return fetch(`${service.url}/v1/tasks`, { method: 'POST', headers, body: JSON.stringify(body), ...(signal ? { signal } : {}) })
}

async function aTask(caller: Caller, sessionId: string): Promise<string> {
  const res = await post(caller, { sessionId, instruction: `Plan the launch posts ${randomUUID()}` })
  return ((await res.json()) as { task: { id: string } }).task.id
}

/** Ends a pending task in the log (started, completed), as a worker would. */
async function end(accountId: string, taskId: string): Promise<void> {
  const { events } = await infra.events.load(Task, { accountId, aggregateId: taskId })
  const billing = { billingMonth: new Date().toISOString().slice(0, 7), reservedMicros: 10_000 }
  const usage = { provider: 'offline', model: 'offline', inputTokens: 1, outputTokens: 1 }
  const drafts: TaskEvent[] = [
    { type: 'TaskStarted', data: { workerId: 'test' } },
    { type: 'TaskCompleted', data: { result: 'done', usage, costMicros: 1, learnedFacts: [], agentType: 'growth-marketer', ...billing } },
  ]
  const metadata = { correlationId: randomUUID(), causationId: null, keyId: null }
  await infra.events.append(Task, { accountId, aggregateId: taskId }, drafts, { expectedVersion: events.at(-1)?.seq ?? 0, metadata, now: new Date() })
}

/** The account's tasks in the log (TaskCreated). */
async function tasksOf(accountId: string): Promise<string[]> {
  const { events } = await new LogReader(infra).read('MATS_TASKS', accountSubjects('task', accountId), 1)
  return events.filter((e) => e.type === 'TaskCreated').map((e) => e.aggregateId)
}

t.test(
  'given 150 waitSeconds requests, 100 task streams and 100 account feeds held open, when 100 waits and 50 streams end with their task and the others go away first, then nothing of them is left: no hub place, consumer, subscription, connection or timer',
  async (t) => {
    // Given: a warm process (one wait and one stream over), at rest.
    const caller = await aCaller(infra, service.url)
    const sessionId = await aSession(caller)
    const warm = await aTask(caller, sessionId)
    await end(caller.account.id, warm)
    await (await openSse(`${service.url}/v1/tasks/${warm}/events`, caller.key.key)).rest()
    await until('the warm-up to leave the hub', () => hub.size === 0 && !hub.consuming, RUN_DEADLINE_MS)
    const before = { subscriptions: await subscriptionsOnServer(), connections: await httpConnections(), timers: timers() }

    // When: every client held at once
    const followed = await Promise.all(Array.from({ length: 100 }, () => aTask(caller, sessionId)))
    const streams: SseStream[] = await Promise.all(followed.map((id) => openSse(`${service.url}/v1/tasks/${id}/events`, caller.key.key)))
    const feeds = await Promise.all(Array.from({ length: 100 }, () => openSse(`${service.url}/v1/events`, caller.key.key)))
    const leaving = new AbortController()
    const waits = Array.from({ length: 150 }, (_, i) =>
      post(caller, { sessionId, instruction: `Wait for me ${randomUUID()}`, waitSeconds: 120 }, i < 50 ? leaving.signal : undefined).then(
        async (res) => ((await res.json()) as { task: { status: string } }).task.status,
        () => 'gone',
      ),
    )
    await until('all 350 clients to be held', () => hub.size === 350, RUN_DEADLINE_MS)
    t.equal((await liveConsumers(infra.jsm)).length, 1, 'one shared consumer for all of them')
    // ...then some go away before their task ends: 50 waits, 50 task streams, every account feed.
    leaving.abort()
    for (const stream of streams.slice(0, 50)) stream.close()
    for (const feed of feeds) feed.close()
    // Well before the waits' 120 s: a wait whose client went must not hold its place until then.
    await until('the 200 clients that went away to leave the hub', () => hub.size === 150, LEAVE_DEADLINE_MS)
    // ...and the tasks end.
    for (const id of await tasksOf(caller.account.id)) if (id !== warm) await end(caller.account.id, id)
    const ends = await Promise.all(streams.slice(50).map((s) => s.rest()))
    const answers = await Promise.all(waits)

    // Then
    t.ok(
      ends.every((events) => events.at(-1)?.event === 'TaskCompleted'),
      'the 50 streams still open ended with their task',
    )
    t.same(answers.slice(0, 50), Array(50).fill('gone'), 'the 50 waits that went away got no answer')
    t.same(answers.slice(50), Array(100).fill('completed'), 'the 100 others were answered their task, completed')
    await until('every client to leave the hub, and its consumer to go', () => hub.size === 0 && !hub.consuming, RUN_DEADLINE_MS)
    // A socket closes, an unsubscription reaches the server, a moment after the client went.
    await until(
      'the connections and subscriptions to be back where they were',
      async () => (await httpConnections()) === before.connections && (await subscriptionsOnServer()) === before.subscriptions,
      RUN_DEADLINE_MS,
    ).catch(() => undefined)
    t.same(await liveConsumers(infra.jsm), [], 'no live consumer on the server')
    t.equal(await subscriptionsOnServer(), before.subscriptions, `as many subscriptions on nats-server as before (${before.subscriptions})`)
    t.equal(await httpConnections(), before.connections, `as many HTTP connections open as before (${before.connections})`)
    t.ok(timers() <= before.timers + 20, `no timer per client left (${timers()} now, ${before.timers} before)`)
  },
)

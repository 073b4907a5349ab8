import { randomUUID } from 'node:crypto'
import type { JetStreamManager } from '@nats-io/jetstream'
import t from 'tap'
import { startService } from '../../src/service.js'
import { Task } from '../../src/domain/tasks/task.js'
import { liveConsumers } from '../helpers/live-consumers.js'
import type { ApiClient } from '../helpers/http.js'
import { aCaller, aSessionBody, endedTaskDrafts, type Caller } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { startTestService, testConfig, testLog } from '../helpers/service.js'
import { openSse, type SseStream } from '../helpers/sse.js'
import { until } from '../helpers/wait.js'

/** Deadlines sized for a loaded machine (2 cores shared by many test runs). */
const RUN_DEADLINE_MS = 60_000
const IDLE_MS = 300

const servers = await startServers(t)
// No worker in the API's process: tasks stay pending until a test starts one, so every wait and stream is held live.
// NATS_TIMEOUT_MS 3000: the floods below append through this service's store; on a starved
// machine a commit answered after the default timeout would end the test with a 503 in doubt,
// which says nothing about the feeds under test.
const service = await startTestService(t, servers, { roles: ['api', 'projector'], env: { LIVE_EVENTS_IDLE_MS: String(IDLE_MS), TASK_EVENTS_HEARTBEAT_MS: '1000', NATS_TIMEOUT_MS: '3000' } })
const { infra } = service
const hub = infra.liveEvents

// The workers' durable consumer outlives them: create it now, so that consumer counts compare plainly.
await (await startService(testConfig(servers), testLog(), new Set(['worker'] as const))).stop()

/** Every consumer on the server, whatever its stream. */
async function consumersOnServer(jsm: JetStreamManager): Promise<number> {
  let total = 0
  for await (const stream of jsm.streams.list()) total += stream.state.consumer_count
  return total
}

async function aSession(api: ApiClient): Promise<string> {
  return (await api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
}

async function aTask(api: ApiClient, sessionId: string): Promise<string> {
  const task = await api.post<{ task: { id: string } }>('/v1/tasks', { sessionId, instruction: `Plan the launch posts ${randomUUID()}` })
  if (task.status !== 201) throw new Error(`task not created: ${task.status} ${JSON.stringify(task.body)}`)
  return task.body.task.id
}

const accountFeed = (caller: Caller): Promise<SseStream> => openSse(`${service.url}/v1/events`, caller.key.key)
const taskFeed = (caller: Caller, taskId: string): Promise<SseStream> => openSse(`${service.url}/v1/tasks/${taskId}/events`, caller.key.key)

t.test(
  'given 30 waitSeconds requests, 20 task streams and 10 account feeds held open on one API process, then they hold one consumer between them; once they end, nothing is left: no registration, no consumer',
  async (t) => {
    // Given
    const callers = [await aCaller(infra, service.url), await aCaller(infra, service.url)]
    const sessions = await Promise.all(callers.map((c) => aSession(c.api)))
    // One task first, so that whatever a process opens once (the budget's live view) is open before counting.
    await aTask(callers[0]?.api as ApiClient, sessions[0] as string)
    await until('no live consumer left from before', async () => (await liveConsumers(infra.jsm)).length === 0, RUN_DEADLINE_MS)
    const before = await consumersOnServer(infra.jsm)
    const caller = (i: number) => callers[i % 2] as Caller
    const session = (i: number) => sessions[i % 2] as string

    // When
    const waits = Array.from({ length: 30 }, (_, i) =>
      caller(i).api.post<{ task: { status: string } }>('/v1/tasks', { sessionId: session(i), instruction: `Wait for me ${randomUUID()}`, waitSeconds: 60 }),
    )
    const followed = await Promise.all(Array.from({ length: 20 }, (_, i) => aTask(caller(i).api, session(i))))
    const streams = await Promise.all(followed.map((taskId, i) => taskFeed(caller(i), taskId)))
    const feeds = await Promise.all(Array.from({ length: 10 }, (_, i) => accountFeed(caller(i))))
    await until('all 60 to be followed live', () => hub.size === 60, RUN_DEADLINE_MS)
    const during = await consumersOnServer(infra.jsm)
    const worker = await startService(testConfig(servers), testLog(), new Set(['worker'] as const))
    const answers = await Promise.all(waits)
    const ends = await Promise.all(streams.map((s) => s.rest()))
    for (const feed of feeds) feed.close()
    // Its consumer of cancellations is its own, not the API's: gone with it.
    await worker.stop()

    // Then
    t.equal(during, before + 1, `60 live readers held one consumer between them (${before} before, ${during} during)`)
    t.same(
      answers.map((a) => a.body.task.status),
      Array(30).fill('completed'),
      'every wait answered its task as completed',
    )
    t.ok(
      ends.every((events) => events.at(-1)?.event === 'TaskCompleted'),
      'every task stream ended with its terminal event',
    )
    await until('every reader to leave the hub', () => hub.size === 0, RUN_DEADLINE_MS)
    // Live consumers only: the worker started above leaves its per-account dispatch durables (ADR 0052), which outlive it by design.
    await until('the shared consumer to be deleted once idle', async () => (await liveConsumers(infra.jsm)).length === 0 && !hub.consuming, RUN_DEADLINE_MS)
    t.same(await liveConsumers(infra.jsm), [], 'no live consumer left on the server')
  },
)

/** Appends one whole task (created, started, completed) of an account straight to the log, as a worker elsewhere would. */
async function aWholeTask(accountId: string, instruction: string): Promise<number> {
  const metadata = { correlationId: randomUUID(), causationId: null, keyId: null }
  const recorded = await infra.events.append(Task, { accountId, aggregateId: randomUUID() }, endedTaskDrafts(randomUUID(), instruction), { expectedVersion: 0, metadata, now: new Date() })
  return recorded.at(-1)?.seq ?? 0
}

/** `count` whole tasks of the account, 4 appends at a time (each is an atomic batch; a process keeps 16 in flight per stream). */
async function floodOf(accountId: string, instruction: string, count: number): Promise<void> {
  for (let i = 0; i < count; i += 4) await Promise.all(Array.from({ length: Math.min(4, count - i) }, (_, j) => aWholeTask(accountId, `${instruction}${i + j}`)))
}

t.test(
  'given a noisy account holding 50 open feeds that it does not read, when it floods 300 events, then a quiet account on the same API process still gets its events at once, exactly its own',
  async (t) => {
    // Given
    const noisy = await aCaller(infra, service.url)
    const quiet = await aCaller(infra, service.url)
    const unread = await Promise.all(Array.from({ length: 50 }, () => accountFeed(noisy)))
    const quietFeed = await accountFeed(quiet)
    await until('all 51 feeds to be followed live', () => hub.size >= 51, RUN_DEADLINE_MS)

    // When: the flood, and the quiet account's tasks in the middle of it
    const big = 'Rewrite every landing page for the spring launch. '.repeat(20)
    const flood = floodOf(noisy.account.id, big, 100)
    const latencies: number[] = []
    for (let i = 0; i < 3; i++) {
      const lastSeq = await aWholeTask(quiet.account.id, `Quiet task ${i}`)
      const storedAt = Date.now()
      for (;;) {
        const block = await until('the quiet event', () => quietFeed.next(), RUN_DEADLINE_MS)
        if (block === null) throw new Error('the quiet feed ended')
        if (block.comment !== undefined) continue
        const body = JSON.parse(block.data ?? '{}') as { accountId: string }
        t.equal(body.accountId, quiet.account.id, 'only its own events (invariant 7)')
        if (Number(block.id) === lastSeq) break
      }
      latencies.push(Date.now() - storedAt)
    }
    await flood

    // Then
    t.comment(`the quiet account's task ends reached its feed ${latencies.join(', ')} ms after they were stored, beside a flood into 50 unread feeds`)
    t.ok(Math.max(...latencies) < 2000, `every one within invariant 11's 2 s (${Math.max(...latencies)} ms)`)
    quietFeed.close()
    for (const feed of unread) feed.close()
    await until('every feed to leave the hub', () => hub.size === 0, RUN_DEADLINE_MS)
  },
)

import { randomUUID } from 'node:crypto'
import t, { type Test } from 'tap'
import { startService } from '../../src/service.js'
import { liveConsumers } from '../helpers/live-consumers.js'
import type { ApiClient } from '../helpers/http.js'
import { aCaller, aSessionBody, type Caller } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { startTestService, testConfig, testLog } from '../helpers/service.js'
import { taskHistories } from '../helpers/task-log.js'
import { openSse, type SseBlock, type SseStream } from '../helpers/sse.js'
import { until } from '../helpers/wait.js'

const HEARTBEAT_MS = 100
/** Deadlines sized for a loaded machine (2 cores shared by many test runs). */
const RUN_DEADLINE_MS = 60_000

const servers = await startServers(t)
// No worker in the API's process: tasks stay pending until a test starts one. The shared
// consumer is deleted as soon as the last feed closes (no idle time), so that counts compare plainly.
const service = await startTestService(t, servers, { roles: ['api', 'projector'], env: { TASK_EVENTS_HEARTBEAT_MS: String(HEARTBEAT_MS), LIVE_EVENTS_IDLE_MS: '0' } })
const { jsm } = service.infra

async function startWorker(t: Test): Promise<void> {
  const worker = await startService(testConfig(servers), testLog(), new Set(['worker'] as const))
  t.teardown(() => worker.stop())
}

async function aSession(api: ApiClient): Promise<string> {
  return (await api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
}

async function aTask(api: ApiClient, sessionId: string): Promise<string> {
  const task = await api.post<{ task: { id: string } }>('/v1/tasks', { sessionId, instruction: `Plan the launch posts ${randomUUID()}` })
  if (task.status !== 201) throw new Error(`task not created: ${task.status} ${JSON.stringify(task.body)}`)
  return task.body.task.id
}

const feedOf = (caller: Caller, headers: Record<string, string> = {}, url = service.url): Promise<SseStream> => openSse(`${url}/v1/events`, caller.key.key, headers)

interface Received {
  readonly seq: number
  readonly type: string
  readonly accountId: string
  readonly taskId: string
}

function parse(block: SseBlock): Received {
  const body = JSON.parse(block.data ?? '{}') as { type: string; accountId: string; aggregateId: string }
  return { seq: Number(block.id), type: body.type, accountId: body.accountId, taskId: body.aggregateId }
}

/** Reads events (past keep-alives) into `into` until `done` says so, or fails at the deadline. */
async function readUntil(stream: SseStream, into: Received[], done: (received: Received[]) => boolean): Promise<void> {
  const deadline = Date.now() + RUN_DEADLINE_MS
  while (!done(into)) {
    if (Date.now() > deadline) throw new Error(`timed out after ${RUN_DEADLINE_MS} ms with ${into.length} events: ${JSON.stringify(into.map((e) => e.type))}`)
    const block = await stream.next()
    if (!block) throw new Error(`the stream ended after ${into.length} events`)
    if (block.comment === undefined) into.push(parse(block))
  }
}

const ended = (taskIds: readonly string[]) => (received: Received[]) => taskIds.every((id) => received.some((e) => e.taskId === id && (e.type === 'TaskCompleted' || e.type === 'TaskFailed')))

/** The account's task events in the log, in log order. */
async function accountLog(accountId: string): Promise<Received[]> {
  const events = [...(await taskHistories(service.infra)).values()].flat().filter((e) => e.accountId === accountId)
  return events.sort((a, b) => a.seq - b.seq).map((e) => ({ seq: e.seq, type: e.type, accountId: e.accountId, taskId: e.aggregateId }))
}

t.test(
  'given two accounts with open feeds, when each creates a task after its feed opened and a worker runs them, then each feed carries exactly its own account events, live, ids the stream sequences',
  async (t) => {
    const alice = await aCaller(service.infra, service.url)
    const bob = await aCaller(service.infra, service.url)
    const [aliceSession, bobSession] = await Promise.all([aSession(alice.api), aSession(bob.api)])
    const aliceFeed = await feedOf(alice)
    const bobFeed = await feedOf(bob)
    t.equal(aliceFeed.status, 200)
    t.match(aliceFeed.headers.get('content-type'), /^text\/event-stream/)
    t.match(aliceFeed.headers.get('ratelimit-policy'), /"tasks\.read"/, 'counted in the tasks.read group')

    const aliceTasks = [await aTask(alice.api, aliceSession), await aTask(alice.api, aliceSession)]
    const bobTasks = [await aTask(bob.api, bobSession)]
    await startWorker(t)
    const aliceGot: Received[] = []
    const bobGot: Received[] = []
    await Promise.all([readUntil(aliceFeed, aliceGot, ended(aliceTasks)), readUntil(bobFeed, bobGot, ended(bobTasks))])
    aliceFeed.close()
    bobFeed.close()

    t.same(aliceGot, await accountLog(alice.account.id), "alice's feed: every event of her account, in log order, with the log's sequences, and nothing else")
    t.same(bobGot, await accountLog(bob.account.id), "bob's feed: the same for his")
    t.ok(
      aliceGot.every((e) => e.accountId === alice.account.id),
      'no event of another account (invariant 7)',
    )
    t.same(
      aliceGot.filter((e) => e.taskId === aliceTasks[0]).map((e) => e.type),
      ['TaskCreated', 'TaskStarted', 'TaskCompleted'],
      'a task created after the feed opened shows up through its completion',
    )
  },
)

t.test('given a client that read part of the feed and left, when it resumes with Last-Event-ID after more happened, then it gets exactly what it missed: nothing lost, nothing repeated', async (t) => {
  const caller = await aCaller(service.infra, service.url)
  const sessionId = await aSession(caller.api)
  const first = await feedOf(caller)
  const before = [await aTask(caller.api, sessionId), await aTask(caller.api, sessionId)]
  const seen: Received[] = []
  await readUntil(first, seen, (got) => got.length === 2)
  first.close()

  await startWorker(t)
  const after = [await aTask(caller.api, sessionId)]
  const all = await until(
    'every task of the account to end in the log',
    async () => {
      const log = await accountLog(caller.account.id)
      return ended([...before, ...after])(log) && log
    },
    RUN_DEADLINE_MS,
  )

  const resumed = await feedOf(caller, { 'last-event-id': String(seen.at(-1)?.seq) })
  t.teardown(() => resumed.close())
  const missed: Received[] = []
  await readUntil(resumed, missed, (got) => got.length >= all.length - seen.length)
  t.same([...seen, ...missed], all, 'what the first stream saw, then what the second one sent, is the log exactly')
  t.same(await resumed.next(), { comment: 'keep-alive' }, 'and nothing more: the stream idles on')
  resumed.close()
})

t.test('given feeds of two accounts open on one API process, then one consumer serves all fifty; once they close, none is left', async (t) => {
  const callers = [await aCaller(service.infra, service.url), await aCaller(service.infra, service.url)]
  t.same(await liveConsumers(jsm), [], 'none before')
  const feeds = await Promise.all(Array.from({ length: 50 }, (_, i) => feedOf(callers[i % 2] as Caller)))
  t.same(
    feeds.map((f) => f.status),
    Array(50).fill(200),
  )
  t.equal((await liveConsumers(jsm)).length, 1, 'one consumer for fifty open feeds (as fifty consoles in Live mode)')
  for (const feed of feeds) feed.close()
  await until('the shared consumer to be deleted once the last feed closed', async () => (await liveConsumers(jsm)).length === 0, RUN_DEADLINE_MS)
})

t.test('given a bad Last-Event-ID or no key, then a JSON { error } before any stream', async (t) => {
  const caller = await aCaller(service.infra, service.url)
  const bad = await feedOf(caller, { 'last-event-id': 'abc' })
  t.equal(bad.status, 400)
  t.match(JSON.parse(bad.text), { error: /^headers\.last-event-id: /, code: 'invalid_request' }, 'names the header')
  const anonymous = await fetch(`${service.url}/v1/events`)
  t.equal(anonymous.status, 401)
  t.same(await liveConsumers(jsm), [])
})

t.test('given an account at SSE_MAX_STREAMS_PER_ACCOUNT, when it opens one more feed, then 429 rate_limited; task streams and account feeds share the cap', async (t) => {
  const capped = await startTestService(t, servers, { roles: ['api'], env: { SSE_MAX_STREAMS_PER_ACCOUNT: '2', TASK_EVENTS_HEARTBEAT_MS: String(HEARTBEAT_MS) } })
  const caller = await aCaller(service.infra, service.url)
  const taskStream = await openSse(`${capped.url}/v1/tasks/${await aTask(caller.api, await aSession(caller.api))}/events`, caller.key.key)
  const feed = await feedOf(caller, {}, capped.url)
  t.same([taskStream.status, feed.status], [200, 200])
  const refused = await feedOf(caller, {}, capped.url)
  t.equal(refused.status, 429)
  t.equal(refused.headers.get('retry-after'), '10')
  t.match(JSON.parse(refused.text), { code: 'rate_limited' })
  feed.close()
  taskStream.close()
})

t.test('given an open feed, when its API process stops, then the stream ends and the shared consumer is deleted', async (t) => {
  const api = await startTestService(t, servers, { roles: ['api'], env: { SHUTDOWN_GRACE_MS: '60000', TASK_EVENTS_HEARTBEAT_MS: String(HEARTBEAT_MS), LIVE_EVENTS_IDLE_MS: '600000' } })
  const caller = await aCaller(service.infra, service.url)
  const feed = await feedOf(caller, {}, api.url)
  t.same(await feed.next(), { comment: 'keep-alive' }, 'open and idle')
  await api.stop()
  t.same(await feed.rest(), [], 'the stream ended cleanly; the client resumes elsewhere with Last-Event-ID')
  await until('the consumer to be deleted', async () => (await liveConsumers(jsm)).length === 0, RUN_DEADLINE_MS)
})

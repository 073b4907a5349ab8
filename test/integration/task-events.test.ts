import { randomUUID } from 'node:crypto'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import t, { type Test } from 'tap'
import { startService } from '../../src/service.js'
import { CONSUMER_PREFIX as CANCELLATIONS } from '../../consumers/worker/cancellations.js'
import { liveConsumers } from '../helpers/live-consumers.js'
import type { ApiClient } from '../helpers/http.js'
import { aCaller, aSessionBody, type Caller } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { startTestService, testConfig, testLog } from '../helpers/service.js'
import { taskHistories } from '../helpers/task-log.js'
import { openSse, type SseBlock, type SseStream } from '../helpers/sse.js'
import { until } from '../helpers/wait.js'

const HEARTBEAT_MS = 100
const ENVELOPE_FIELDS = ['accountId', 'aggregateId', 'data', 'id', 'metadata', 'occurredAt', 'type', 'version']

const servers = await startServers(t)
// No worker in the API's process: a task stays pending until a test starts one, so it is followed live.
// The shared live consumer is deleted as soon as the last stream ends (no idle time), so that counts compare plainly.
const service = await startTestService(t, servers, { roles: ['api', 'projector'], env: { TASK_EVENTS_HEARTBEAT_MS: String(HEARTBEAT_MS), LIVE_EVENTS_IDLE_MS: '0' } })
const { jsm } = service.infra

/** A worker process of its own (offline agents, 200 ms a run). */
const aWorker = () => startService(testConfig(servers), testLog(), new Set(['worker'] as const))

/** A worker for the rest of the test. */
async function startWorker(t: Test): Promise<void> {
  const worker = await aWorker()
  t.teardown(() => worker.stop())
}

// The workers' durable consumer outlives them: create it now, so that consumer counts compare plainly.
await (await aWorker()).stop()

async function aTask(api: ApiClient): Promise<string> {
  const session = await api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())
  const task = await api.post<{ task: { id: string } }>('/v1/tasks', { sessionId: session.body.session.id, instruction: `Plan the launch posts ${randomUUID()}` })
  if (task.status !== 201) throw new Error(`task not created: ${task.status} ${JSON.stringify(task.body)}`)
  return task.body.task.id
}

const eventsOf = (caller: Caller, taskId: string, headers: Record<string, string> = {}): Promise<SseStream> => openSse(`${service.url}/v1/tasks/${taskId}/events`, caller.key.key, headers)

/** The next event, past keep-alive comments. */
async function nextEvent(stream: SseStream): Promise<SseBlock | null> {
  for (let block = await stream.next(); block; block = await stream.next()) if (block.comment === undefined) return block
  return null
}

/** The consumers of MATS_TASKS other than those of a worker process's cancellations. */
async function otherConsumers(): Promise<string[]> {
  const names: string[] = []
  for await (const info of jsm.consumers.list('MATS_TASKS')) if (!info.name.startsWith(CANCELLATIONS)) names.push(info.name)
  return names.sort()
}

/** Streams and waits the API process follows live now (its hub's registrations). */
const liveReaders = (api: { infra: typeof service.infra } = service): number => api.infra.liveEvents.size

t.test('given a pending task, when a client follows it and a worker then runs it, then every event arrives live, in order, with its stream sequence as id, and the stream ends', async (t) => {
  const caller = await aCaller(service.infra, service.url)
  const taskId = await aTask(caller.api)
  const stream = await eventsOf(caller, taskId)
  t.equal(stream.status, 200)
  t.match(stream.headers.get('content-type'), /^text\/event-stream/)
  t.match(stream.headers.get('ratelimit-policy'), /"tasks\.read"/, 'counted in the tasks.read group')
  const created = await nextEvent(stream)
  t.equal(created?.event, 'TaskCreated', 'the history first')
  await until('the stream to follow the task live', () => liveReaders() === 1)
  t.equal((await liveConsumers(jsm)).length, 1, "followed through the process's one shared consumer")

  await startWorker(t)
  const live = await stream.rest()
  const log = (await taskHistories(service.infra)).get(taskId) ?? []
  const received = [created, ...live]
  t.same(
    received.map((e) => e?.event),
    ['TaskCreated', 'TaskStarted', 'TaskCompleted'],
    'started and completed arrived while the stream was open',
  )
  t.same(
    received.map((e) => Number(e?.id)),
    log.map((e) => e.seq),
    'ids are the stream sequences',
  )
  for (const event of received) {
    const body = JSON.parse(event?.data ?? '{}') as { type: string; aggregateId: string; accountId: string }
    t.same(Object.keys(body).sort(), ENVELOPE_FIELDS, `${event?.event}: the documented envelope, nothing else`)
    t.match(body, { type: event?.event, aggregateId: taskId, accountId: caller.account.id })
  }
  await until('the stream to leave the hub once it ended', () => liveReaders() === 0)
  await until('the shared consumer to be deleted once nothing follows', async () => (await liveConsumers(jsm)).length === 0)
})

t.test('given an ended task, when a client resumes with Last-Event-ID, then it gets only the later events; past the terminal event, an empty stream that ends', async (t) => {
  await startWorker(t)
  const caller = await aCaller(service.infra, service.url)
  const taskId = await aTask(caller.api)
  const all = await until('the task to end', async () => {
    const events = await (await eventsOf(caller, taskId)).rest()
    return events.at(-1)?.event === 'TaskCompleted' && events
  })
  const [created, started, completed] = all

  const resumed = await (await eventsOf(caller, taskId, { 'last-event-id': created?.id ?? '' })).rest()
  t.same(
    resumed.map((e) => [e.id, e.event]),
    [
      [started?.id, 'TaskStarted'],
      [completed?.id, 'TaskCompleted'],
    ],
  )
  const afterEnd = await eventsOf(caller, taskId, { 'last-event-id': completed?.id ?? '' })
  t.equal(afterEnd.status, 200)
  t.same(await afterEnd.rest(), [], 'nothing after the terminal event, and the stream ends')
  t.equal(liveReaders(), 0, 'an ended task is read, not followed')
})

t.test('given a client that went away mid-stream, when it comes back with Last-Event-ID, then it gets exactly what it missed, and the server kept nothing for the first stream', async (t) => {
  const caller = await aCaller(service.infra, service.url)
  const taskId = await aTask(caller.api)
  const first = await eventsOf(caller, taskId)
  const created = await nextEvent(first)
  await until('the stream to follow the task live', () => liveReaders() === 1)
  first.close()
  await until('the closed stream to leave the hub', () => liveReaders() === 0)

  await startWorker(t)
  const missed = await (await eventsOf(caller, taskId, { 'last-event-id': created?.id ?? '' })).rest()
  t.same(
    missed.map((e) => e.event),
    ['TaskStarted', 'TaskCompleted'],
  )
  t.equal(liveReaders(), 0, 'nothing held for the second stream either')
})

t.test('given 20 streams followed live to their end, then no consumer is left on MATS_TASKS', async (t) => {
  const caller = await aCaller(service.infra, service.url)
  const before = (await otherConsumers()).length
  const taskIds = await Promise.all(Array.from({ length: 20 }, () => aTask(caller.api)))
  const streams = await Promise.all(taskIds.map((taskId) => eventsOf(caller, taskId)))
  await until('all 20 streams to follow their task live', () => liveReaders() === 20)
  t.equal((await liveConsumers(jsm)).length, 1, 'one shared consumer for all 20 streams')
  await startWorker(t)
  const ends = await Promise.all(streams.map((stream) => stream.rest()))
  t.ok(
    ends.every((events) => events.at(-1)?.event === 'TaskCompleted'),
    'every stream ended with its terminal event',
  )
  await until('every stream to leave the hub', () => liveReaders() === 0)
  await until('as many consumers on MATS_TASKS as before (besides the one a running worker holds for cancellations)', async () => (await otherConsumers()).length === before)
})

t.test('given an idle stream, then keep-alive comments arrive between events', async (t) => {
  const caller = await aCaller(service.infra, service.url)
  const stream = await eventsOf(caller, await aTask(caller.api))
  t.equal((await stream.next())?.event, 'TaskCreated')
  t.same(await stream.next(), { comment: 'keep-alive' }, `a comment within ${HEARTBEAT_MS} ms of silence`)
  stream.close()
  await until('the closed stream to leave the hub', () => liveReaders() === 0)
})

t.test('given an open stream, when its API process stops, then the stream ends at once instead of holding the shutdown for its grace period', async (t) => {
  // Its shared consumer would outlive the last stream for 10 minutes: only the stop deletes it.
  const api = await startTestService(t, servers, { roles: ['api'], env: { SHUTDOWN_GRACE_MS: '60000', LIVE_EVENTS_IDLE_MS: '600000' } })
  const caller = await aCaller(service.infra, service.url)
  const stream = await openSse(`${api.url}/v1/tasks/${await aTask(caller.api)}/events`, caller.key.key)
  t.equal((await nextEvent(stream))?.event, 'TaskCreated')
  await until('the stream to follow the task live', () => liveReaders(api) === 1)
  const startedAt = Date.now()
  await api.stop()
  t.ok(Date.now() - startedAt < 30_000, 'stopped well within the 60 s grace period')
  t.same(await stream.rest(), [], 'the stream ended cleanly; the client resumes elsewhere with Last-Event-ID')
  t.equal(liveReaders(api), 0, 'the stream left the hub')
  // Left behind, it would stay for the server's 5 minutes of inactivity.
  await until('the shared consumer to be deleted by the stop', async () => (await liveConsumers(jsm)).length === 0)
})

t.test('given HEAD on a pending task, then the stream headers at once, and nothing left behind', async (t) => {
  const caller = await aCaller(service.infra, service.url)
  const res = await fetch(`${service.url}/v1/tasks/${await aTask(caller.api)}/events`, { method: 'HEAD', headers: { authorization: `Bearer ${caller.key.key}` } })
  t.equal(res.status, 200)
  t.match(res.headers.get('content-type'), /^text\/event-stream/)
  t.equal(liveReaders(), 0, 'nothing followed')
})

t.test('given a task of another account, an unknown task or a bad Last-Event-ID, then a JSON { error } before any stream', async (t) => {
  const owner = await aCaller(service.infra, service.url)
  const stranger = await aCaller(service.infra, service.url)
  const taskId = await aTask(owner.api)
  for (const [what, stream] of [
    ['foreign', await eventsOf(stranger, taskId)],
    ['unknown', await eventsOf(owner, randomUUID())],
  ] as const) {
    t.equal(stream.status, 404, `${what}: 404`)
    t.match(stream.headers.get('content-type'), /^application\/json/)
    t.same(JSON.parse(stream.text), { error: 'task not found', code: 'not_found' }, `${what}: { error, code }`)
  }
  const badId = await eventsOf(owner, taskId, { 'last-event-id': 'abc' })
  t.equal(badId.status, 400)
  t.match(JSON.parse(badId.text), { error: /^headers\.last-event-id: / }, 'names the header')
  const badTask = await eventsOf(owner, 'task-1')
  t.equal(badTask.status, 400)
  t.match(JSON.parse(badTask.text), { error: /^params\.taskId: / })
  t.equal(liveReaders(), 0, 'nothing followed')
})

t.test(
  'given an account holding SSE_MAX_STREAMS_PER_ACCOUNT open streams, when it opens one more, then 429 with Retry-After and code rate_limited; other accounts are not affected; a closed stream frees its slot',
  async (t) => {
    const capped = await startTestService(t, servers, { roles: ['api'], env: { SSE_MAX_STREAMS_PER_ACCOUNT: '2', TASK_EVENTS_HEARTBEAT_MS: String(HEARTBEAT_MS) } })
    const caller = await aCaller(service.infra, service.url)
    const other = await aCaller(service.infra, service.url)
    const follow = (who: Caller, taskId: string) => openSse(`${capped.url}/v1/tasks/${taskId}/events`, who.key.key)
    const [first, second, third] = await Promise.all([aTask(caller.api), aTask(caller.api), aTask(caller.api)])
    const open = [await follow(caller, first), await follow(caller, second)]
    t.same(
      open.map((s) => s.status),
      [200, 200],
      'two streams open',
    )
    for (const stream of open) t.equal((await nextEvent(stream))?.event, 'TaskCreated')

    const refused = await follow(caller, third)
    t.equal(refused.status, 429, 'the third is refused')
    t.equal(refused.headers.get('retry-after'), '10')
    t.match(JSON.parse(refused.text), { error: /^too many open event streams: this account holds 2, the most one server allows; close one or retry in 10 s$/, code: 'rate_limited' })

    const stranger = await follow(other, await aTask(other.api))
    t.equal(stranger.status, 200, 'another account opens its own')
    stranger.close()

    open[0]?.close()
    const reopened = await until('the closed stream to free its slot', async () => {
      const attempt = await follow(caller, third)
      if (attempt.status === 200) return attempt
      t.equal(attempt.status, 429, 'refused while the slot is still held')
      return false
    })
    t.equal((await nextEvent(reopened))?.event, 'TaskCreated', 'a stream opens once one was closed')
    reopened.close()
    open[1]?.close()
  },
)

t.test('given the schema the OpenAPI document gives the event stream, when a task is followed to its end, then every event and its data validate against it', async (t) => {
  const caller = await aCaller(service.infra, service.url)
  const doc = (await (await fetch(`${service.url}/v1/openapi.json`)).json()) as {
    components: unknown
    paths: Record<string, Record<string, { responses: Record<string, { content: Record<string, { schema: { $ref: string } }> }> }>>
  }
  const streamSchema = doc.paths['/tasks/{taskId}/events']?.get?.responses['200']?.content['text/event-stream']?.schema
  t.equal(streamSchema?.$ref, '#/components/schemas/TaskEventStreamItem', 'the stream is described by a named schema')
  // The document's components, as one JSON Schema 2020-12 resource its $refs resolve in.
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  addFormats.default(ajv)
  ajv.addSchema({ $id: 'openapi', components: doc.components })
  const validItem = ajv.compile({ $ref: `openapi${streamSchema?.$ref}` })
  const validData = ajv.compile({ $ref: `openapi${streamSchema?.$ref}/properties/data/contentSchema` })

  const taskId = await aTask(caller.api)
  const stream = await eventsOf(caller, taskId)
  await startWorker(t)
  const events = await stream.rest()
  t.same(events.at(-1)?.event, 'TaskCompleted', 'followed to the end')
  t.ok(events.length >= 3, `${events.length} events`)
  for (const event of events) {
    const item = { id: event.id, event: event.event, data: event.data }
    t.ok(validItem(item), `${event.event}: id, event and data match TaskEventStreamItem ${ajv.errorsText(validItem.errors).slice(0, 300)}`)
    const data: unknown = JSON.parse(event.data ?? 'null')
    t.ok(validData(data), `${event.event}: data matches its contentSchema ${ajv.errorsText(validData.errors).slice(0, 300)}`)
  }
  const tampered = { ...(JSON.parse(events[0]?.data ?? '{}') as Record<string, unknown>), type: 'TaskExploded' }
  t.notOk(validData(tampered), 'and the schema refuses an event type it does not describe')
})

import { randomUUID } from 'node:crypto'
import t from 'tap'
import { startService } from '../../src/service.js'
import type { AppContext } from '../../src/app-context.js'
import { IdempotencyStore, IN_FLIGHT_STALE_MS } from '../../src/infra/nats/idempotency-store.js'
import { ApiClient, type ApiResponse } from '../helpers/http.js'
import { streamEvents } from '../helpers/event-log.js'
import { aCaller, aSessionBody } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { startTestService, testConfig, testLog } from '../helpers/service.js'
import { taskHistories } from '../helpers/task-log.js'

interface Reply {
  task?: { id: string }
  session?: { id: string }
  error?: string
}

const servers = await startServers(t)
// No worker: tasks stay pending, so nothing but the key decides what a repeat answers.
const service = await startTestService(t, servers, { roles: ['api', 'projector'] })

const keyed = (key: string) => ({ 'idempotency-key': key })
const replayed = (res: ApiResponse<unknown>) => res.headers.get('idempotent-replayed')
const aBrief = (sessionId: string) => ({ sessionId, instruction: `Plan the autumn launch posts ${randomUUID()}` })

async function aSession(api: ApiClient): Promise<string> {
  const res = await api.post<Reply>('/v1/sessions', aSessionBody())
  if (res.status !== 201 || !res.body.session) throw new Error(`session not created: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body.session.id
}

async function tasksInLog(infra: AppContext, accountId: string): Promise<number> {
  return [...(await taskHistories(infra)).values()].filter((events) => events[0]?.accountId === accountId).length
}

async function sessionsInLog(infra: AppContext, accountId: string): Promise<number> {
  return (await streamEvents(infra, 'MATS_SESSIONS')).filter((e) => e.type === 'SessionCreated' && e.accountId === accountId).length
}

t.test('given a key, when the same POST /v1/tasks comes again, then the first answer comes back marked replayed and no second task exists', async (t) => {
  const { api, account } = await aCaller(service.infra, service.url)
  const brief = aBrief(await aSession(api))
  const key = randomUUID()

  const first = await api.post<Reply>('/v1/tasks', brief, keyed(key))
  const again = await api.post<Reply>('/v1/tasks', brief, keyed(key))
  const reordered = await api.post<Reply>('/v1/tasks', { instruction: brief.instruction, sessionId: brief.sessionId }, keyed(key))

  t.equal(first.status, 201)
  t.equal(replayed(first), null, 'a first answer is not marked')
  t.equal(again.status, 201, 'same status')
  t.same(again.body, first.body, 'same body')
  t.equal(replayed(again), 'true', 'Idempotent-Replayed: true')
  t.equal(again.headers.get('location'), first.headers.get('location'), 'the same Location')
  t.same(reordered.body, first.body, 'the same JSON with its keys in another order is the same body')
  t.equal(replayed(reordered), 'true')
  t.equal(await tasksInLog(service.infra, account.id), 1, 'one task in the log')
})

t.test('given a key used once, when it comes with a different body, then 422 names the header, nothing is created, and the first answer still replays', async (t) => {
  const { api, account } = await aCaller(service.infra, service.url)
  const sessionId = await aSession(api)
  const key = randomUUID()
  const firstBrief = aBrief(sessionId)
  const first = await api.post<Reply>('/v1/tasks', firstBrief, keyed(key))

  const other = await api.post<Reply>('/v1/tasks', aBrief(sessionId), keyed(key))
  const elsewhere = await api.post<Reply>('/v1/sessions', aSessionBody(), keyed(key))

  t.equal(other.status, 422)
  t.match(other.body.error, /^headers\.idempotency-key: /)
  t.equal(elsewhere.status, 422, 'the key on another route is another request too')
  t.equal(await tasksInLog(service.infra, account.id), 1, 'no second task')
  const retried = await api.post<Reply>('/v1/tasks', { sessionId, instruction: '' }, keyed(key))
  t.equal(retried.status, 400, 'a body that fails validation never reaches the key')
  t.same((await api.post<Reply>('/v1/tasks', firstBrief, keyed(key))).body, first.body, 'the first body still replays the first answer')
})

t.test('given a key, when POST /v1/sessions comes again, then the same session comes back and one session exists', async (t) => {
  const { api, account } = await aCaller(service.infra, service.url)
  const key = randomUUID()
  const first = await api.post<Reply>('/v1/sessions', aSessionBody({ name: 'Once only' }), keyed(key))
  const again = await api.post<Reply>('/v1/sessions', aSessionBody({ name: 'Once only' }), keyed(key))
  t.equal(first.status, 201)
  t.same(again.body, first.body)
  t.equal(replayed(again), 'true')
  t.equal(await sessionsInLog(service.infra, account.id), 1)
})

t.test('given 12 concurrent requests with one key, then exactly one runs and the others answer 409 or its replay', async (t) => {
  const { api, account } = await aCaller(service.infra, service.url)
  const brief = aBrief(await aSession(api))
  const key = randomUUID()

  const responses = await Promise.all(Array.from({ length: 12 }, () => api.post<Reply>('/v1/tasks', brief, keyed(key))))

  const original = responses.filter((r) => r.status === 201 && replayed(r) === null)
  t.equal(original.length, 1, 'one request ran')
  const others = responses.filter((r) => !original.includes(r))
  t.ok(
    others.every((r) => r.status === 409 || (r.status === 201 && replayed(r) === 'true')),
    `the rest: ${others.map((r) => r.status).join(',')}`,
  )
  for (const r of others.filter((r) => r.status === 201)) t.same(r.body, original[0]?.body, 'a replay is the original answer')
  for (const r of others.filter((r) => r.status === 409)) t.match(r.body.error, /^headers\.idempotency-key: .*in flight/)
  t.equal(await tasksInLog(service.infra, account.id), 1, 'one task in the log')
})

t.test('given two API processes, then a key taken on one is honoured on the other, concurrent requests included', async (t) => {
  const other = await startService(testConfig(servers), testLog(), new Set(['api'] as const))
  t.teardown(() => other.stop())
  const { api, account } = await aCaller(service.infra, service.url)
  const onOther = new ApiClient(String(other.url), api.key)
  const sessionId = await aSession(api)
  const brief = aBrief(sessionId)
  const key = randomUUID()

  const first = await api.post<Reply>('/v1/tasks', brief, keyed(key))
  const there = await onOther.post<Reply>('/v1/tasks', brief, keyed(key))
  const different = await onOther.post<Reply>('/v1/tasks', aBrief(sessionId), keyed(key))
  t.same(there.body, first.body, 'the other process replays the first answer')
  t.equal(replayed(there), 'true')
  t.equal(different.status, 422)

  const raceBrief = aBrief(sessionId)
  const raceKey = randomUUID()
  const race = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? api : onOther).post<Reply>('/v1/tasks', raceBrief, keyed(raceKey))))
  t.equal(race.filter((r) => r.status === 201 && replayed(r) === null).length, 1, 'one of ten ran, across both processes')
  t.ok(race.every((r) => r.status === 201 || r.status === 409))
  t.equal(await tasksInLog(service.infra, account.id), 2, 'two tasks: one per key')
})

t.test('given an answer stored, when the API restarts, then the key still replays it', async (t) => {
  const before = await startService(testConfig(servers), testLog(), new Set(['api'] as const))
  const { api, account } = await aCaller(service.infra, String(before.url))
  const brief = aBrief(await aSession(api))
  const key = randomUUID()
  const first = await api.post<Reply>('/v1/tasks', brief, keyed(key))
  await before.stop()

  const after = await startService(testConfig(servers), testLog(), new Set(['api'] as const))
  t.teardown(() => after.stop())
  const again = await new ApiClient(String(after.url), api.key).post<Reply>('/v1/tasks', brief, keyed(key))
  t.equal(again.status, 201)
  t.same(again.body, first.body)
  t.equal(replayed(again), 'true')
  t.equal(await tasksInLog(service.infra, account.id), 1)
})

t.test('given a refusal of the request itself (404 unknown session), then it is stored and replayed like a success', async (t) => {
  const { api } = await aCaller(service.infra, service.url)
  const brief = aBrief(randomUUID())
  const key = randomUUID()
  const first = await api.post<Reply>('/v1/tasks', brief, keyed(key))
  const again = await api.post<Reply>('/v1/tasks', brief, keyed(key))
  t.equal(first.status, 404)
  t.equal(again.status, 404)
  t.same(again.body, first.body)
  t.equal(replayed(again), 'true', 'the handler ran to an answer: the draft replays errors too')
})

t.test('given a malformed key, then 400 names headers.idempotency-key and nothing is created', async (t) => {
  const { api, account } = await aCaller(service.infra, service.url)
  const sessionId = await aSession(api)
  for (const [what, key] of [
    ['256 characters', 'k'.repeat(256)],
    ['empty', ''],
    ['not ASCII', 'clé'],
  ] as const) {
    const res = await api.post<Reply>('/v1/tasks', aBrief(sessionId), keyed(key))
    t.equal(res.status, 400, `${what}: 400`)
    t.match(res.body.error, /^headers\.idempotency-key: /, `${what}: names the header`)
  }
  t.equal(await tasksInLog(service.infra, account.id), 0)
  t.equal((await api.post<Reply>('/v1/tasks', aBrief(sessionId), keyed('k'.repeat(255)))).status, 201, '255 printable characters are a key')
})

t.test('given the draft quoted form, then "abc" and abc are the same key', async (t) => {
  const { api } = await aCaller(service.infra, service.url)
  const body = aSessionBody()
  const key = randomUUID()
  const first = await api.post<Reply>('/v1/sessions', body, keyed(`"${key}"`))
  const bare = await api.post<Reply>('/v1/sessions', body, keyed(key))
  t.same(bare.body, first.body)
  t.equal(replayed(bare), 'true')
})

t.test('given two accounts, then the same key is two keys', async (t) => {
  const key = randomUUID()
  const [a, b] = await Promise.all([aCaller(service.infra, service.url), aCaller(service.infra, service.url)])
  const first = await a.api.post<Reply>('/v1/sessions', aSessionBody(), keyed(key))
  const second = await b.api.post<Reply>('/v1/sessions', aSessionBody(), keyed(key))
  t.equal(second.status, 201)
  t.equal(replayed(second), null)
  t.not(second.body.session?.id, first.body.session?.id)
})

t.test('given no key, then nothing changes: two sessions, and an identical brief still answers the pending-task 409', async (t) => {
  const caller = await aCaller(service.infra, service.url)
  const { account } = caller
  const api = caller.api.withoutIdempotencyKeys()
  const one = await api.post<Reply>('/v1/sessions', aSessionBody())
  const two = await api.post<Reply>('/v1/sessions', aSessionBody())
  t.not(one.body.session?.id, two.body.session?.id)
  t.equal(await sessionsInLog(service.infra, account.id), 2)
  const brief = aBrief(one.body.session?.id ?? '')
  t.equal((await api.post<Reply>('/v1/tasks', brief)).status, 201)
  const repeat = await api.post<Reply>('/v1/tasks', brief)
  t.equal(repeat.status, 409)
  t.equal(replayed(repeat), null)
  t.notMatch(repeat.body.error, /idempotency/i)
})

t.test('given a limit of 2 task creations a minute, then a replay counts against it', async (t) => {
  const limited = await startTestService(t, servers, { roles: ['api'], env: { RATE_LIMIT_TASKS_CREATE_PER_MIN: '2' } })
  const { api } = await aCaller(service.infra, limited.url)
  const brief = aBrief(await aSession(api))
  const key = randomUUID()
  t.equal((await api.post<Reply>('/v1/tasks', brief, keyed(key))).status, 201)
  t.equal((await api.post<Reply>('/v1/tasks', brief, keyed(key))).status, 201)
  const third = await api.post<Reply>('/v1/tasks', brief, keyed(key))
  t.equal(third.status, 429, 'the third request, a replay too, is refused')
  t.ok(third.headers.get('retry-after'))
})

t.test('given an entry in flight past its bound (its process died), then the next request takes the key over and the dead one cannot overwrite it', async (t) => {
  const store = await IdempotencyStore.open(service.infra.js, 1)
  const key = IdempotencyStore.key(randomUUID(), 'stale')
  const start = Date.now()
  const dead = await store.begin(key, 'body-a', start)
  t.equal(dead.kind, 'claimed')
  t.same(await store.begin(key, 'body-a', start + IN_FLIGHT_STALE_MS - 1), { kind: 'in-flight' }, 'still in flight just before the bound')
  t.same(await store.begin(key, 'body-b', start + IN_FLIGHT_STALE_MS - 1), { kind: 'other-request' }, 'a different body is refused first')

  const taker = await store.begin(key, 'body-a', start + IN_FLIGHT_STALE_MS)
  t.equal(taker.kind, 'claimed', 'taken over at the bound')
  const answer = { status: 201, contentType: 'application/json', body: '{"ok":true}' }
  t.equal(await store.complete(key, dead.kind === 'claimed' ? dead.revision : 0, 'body-a', { ...answer, body: '{"late":true}' }), false, 'the late answer is not stored')
  t.equal(await store.complete(key, taker.kind === 'claimed' ? taker.revision : 0, 'body-a', answer), true)
  t.same(await store.begin(key, 'body-a', start + IN_FLIGHT_STALE_MS + 1), { kind: 'replay', response: answer })
})

t.test('given an answer not to keep (a 5xx), then abandoning frees the key for a retry', async (t) => {
  const store = await IdempotencyStore.open(service.infra.js, 1)
  const key = IdempotencyStore.key(randomUUID(), 'retry me')
  const first = await store.begin(key, 'body', Date.now())
  if (first.kind !== 'claimed') throw new Error(`not claimed: ${first.kind}`)
  await store.abandon(key, first.revision)
  t.equal((await store.begin(key, 'body', Date.now())).kind, 'claimed', 'the retry runs as a first request')
})

import { randomUUID } from 'node:crypto'
import t from 'tap'
import { ApiClient, type ApiResponse } from '../helpers/http.js'
import { aCaller, aSessionBody } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'

interface TaskView {
  id: string
  sessionId: string
  agentType: string
  taskType: string
  status: string
  instruction: string | null
  result: string | null
  error: string | null
  createdAt: string | null
  startedAt: string | null
  completedAt: string | null
}
interface TaskReply {
  task?: TaskView
  error?: string
  code?: string
  existingTaskId?: string
}
interface TaskList {
  tasks: TaskView[]
  pagination: { page: number; limit: number; total: number; totalPages: number; totalExact: boolean; nextCursor: string | null }
  error?: string
}

/** The spec's Task fields, `parentTaskId` (the link from a delegated task to its supervisor task, issue 6), `rerunOf` and `reruns` (the links of re-runs, issue 21), and what a console shows (issue 20). */
const TASK_FIELDS = [
  'agentType',
  'completedAt',
  'costUsd',
  'createdAt',
  'error',
  'id',
  'instruction',
  'parentTaskId',
  'priority',
  'rerunOf',
  'reruns',
  'result',
  'scheduleId',
  'scheduledFor',
  'sessionId',
  'startedAt',
  'status',
  'taskType',
  'title',
  'usage',
]
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

// 1000 POST-then-GET pairs on FerretDB take about two minutes: above tap's default 180 s for a file.
t.setTimeout(420_000)
const servers = await startServers(t)
// No worker: tasks stay pending, so no claim releases an identity entry during these tests.
const service = await startTestService(t, servers, { roles: ['api', 'projector'] })

async function aSession(api: ApiClient): Promise<string> {
  const res = await api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())
  if (res.status !== 201) throw new Error(`session not created: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body.session.id
}

const brief = (sessionId: string, overrides: Record<string, unknown> = {}) => ({ sessionId, instruction: `Plan the spring launch posts ${randomUUID()}`, ...overrides })
const postTask = (api: ApiClient, body: unknown) => api.post<TaskReply>('/v1/tasks', body)
const idsOf = (res: ApiResponse<TaskList>) => res.body.tasks.map((task) => task.id)

function createdId(res: ApiResponse<TaskReply>): string {
  if (res.status !== 201 || !res.body.task) throw new Error(`task not created: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body.task.id
}

/** TaskCreated messages stored in MATS_TASKS for the account (nats.js v3: `state.subjects` is subject → count). */
async function taskCreatedCount(accountId: string): Promise<number> {
  const info = await service.infra.jsm.streams.info('MATS_TASKS', { subjects_filter: `mats.task.${accountId}.*.TaskCreated` })
  return Object.values(info.state.subjects ?? {}).reduce((sum, n) => sum + n, 0)
}

function tally(responses: readonly ApiResponse<unknown>[]): Record<number, number> {
  const counts: Record<number, number> = {}
  for (const res of responses) counts[res.status] = (counts[res.status] ?? 0) + 1
  return counts
}

t.test('POST /v1/tasks answers 201 { task }: pending, with exactly the spec Task fields, readable at once', async (t) => {
  const { api, account } = await aCaller(service.infra, service.url)
  const sessionId = await aSession(api)
  const res = await postTask(api, { sessionId, instruction: 'Write three launch posts for LinkedIn' })
  t.equal(res.status, 201)
  t.same(Object.keys(res.body), ['task'], 'the body is { task }')
  const task = res.body.task
  t.same(Object.keys(task ?? {}).sort(), TASK_FIELDS, 'the spec Task fields, parentTaskId, the re-run links, the schedule link, priority, title, usage and costUsd, nothing else')
  t.match(task, {
    id: UUID,
    sessionId,
    agentType: 'growth-marketer',
    taskType: 'instruction',
    status: 'pending',
    instruction: 'Write three launch posts for LinkedIn',
    result: null,
    error: null,
    createdAt: /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/,
    startedAt: null,
    completedAt: null,
  })
  t.equal(res.headers.get('location'), `/v1/tasks/${task?.id}`, 'Location names the task')
  const read = await api.get<TaskReply>(res.headers.get('location') ?? '')
  t.equal(read.status, 200)
  t.same(read.body.task, task, 'GET of the Location returns the same task')
  t.equal(await taskCreatedCount(account.id), 1, 'one TaskCreated stored')
})

t.test('every bound of POST /v1/tasks is a 400 naming the field, and a rejected request appends nothing', async (t) => {
  const { api, account } = await aCaller(service.infra, service.url)
  const sessionId = await aSession(api)
  const instruction = 'Plan the spring launch'
  const cases: [string, unknown, RegExp][] = [
    ['sessionId missing', { instruction }, /^body\.sessionId: is required/],
    ['sessionId not a uuid', { sessionId: 'session-1', instruction }, /^body\.sessionId: /],
    ['agentType not one of ten', { sessionId, instruction, agentType: 'copywriter' }, /^body\.agentType: /],
    ['instruction missing', { sessionId }, /^body\.instruction: is required/],
    ['instruction of 3', { sessionId, instruction: 'abc' }, /^body\.instruction: /],
    ['instruction of 4001', { sessionId, instruction: 'i'.repeat(4001) }, /^body\.instruction: /],
    ['title of 201', { sessionId, instruction, title: 't'.repeat(201) }, /^body\.title: /],
    ['priority urgent', { sessionId, instruction, priority: 'urgent' }, /^body\.priority: /],
    ['waitSeconds -1', { sessionId, instruction, waitSeconds: -1 }, /^body\.waitSeconds: /],
    ['waitSeconds 121', { sessionId, instruction, waitSeconds: 121 }, /^body\.waitSeconds: /],
    ['waitSeconds 1.5', { sessionId, instruction, waitSeconds: 1.5 }, /^body\.waitSeconds: /],
    ['waitSeconds "5" (bodies are not coerced)', { sessionId, instruction, waitSeconds: '5' }, /^body\.waitSeconds: /],
    ['unknown field', { sessionId, instruction, owner: 'me' }, /^body\.owner: is not a known field/],
    ['an array body', [{ sessionId, instruction }], /^body: must be object/],
    ['a string body', instruction, /^body: must be object/],
  ]
  for (const [what, body, message] of cases) {
    const res = await postTask(api, body)
    t.equal(res.status, 400, `${what}: 400`)
    t.match(res.body, { error: message }, `${what}: the error names the field`)
    t.same(Object.keys(res.body).sort(), ['code', 'error'], `${what}: the body is { error, code }`)
    t.equal((res.body as { code?: string }).code, 'invalid_request', `${what}: code`)
  }
  t.equal(await taskCreatedCount(account.id), 0, 'no rejected request appended a TaskCreated')

  const atBounds: [string, Record<string, unknown>][] = [
    ['instruction of 4', { sessionId, instruction: 'abcd' }],
    ['instruction of 4000', { sessionId, instruction: 'i'.repeat(4000) }],
    ['title of 200, every option set', { sessionId, instruction, title: 't'.repeat(200), agentType: 'seo', priority: 'high', waitSeconds: 0 }],
  ]
  for (const [what, body] of atBounds) t.equal((await postTask(api, body)).status, 201, `${what}: accepted`)
  t.equal(await taskCreatedCount(account.id), 3, 'each accepted request appended one TaskCreated')
})

t.test('a session that is unknown or another account’s is a 404 with the same error, and nothing is appended', async (t) => {
  const alice = await aCaller(service.infra, service.url)
  const bob = await aCaller(service.infra, service.url)
  const bobSession = await aSession(bob.api)
  const unknown = await postTask(alice.api, brief(randomUUID()))
  const foreign = await postTask(alice.api, brief(bobSession))
  t.equal(unknown.status, 404, 'unknown session: 404')
  t.equal(foreign.status, 404, 'another account’s session: 404')
  t.match(unknown.body, { error: /session not found/ })
  t.same(foreign.body, unknown.body, 'a foreign session reads exactly like an unknown one')
  t.equal(await taskCreatedCount(alice.account.id), 0, 'nothing appended for alice')
  t.equal(await taskCreatedCount(bob.account.id), 0, 'nothing appended for bob')
})

t.test('8 concurrent identical POSTs: exactly one 201, seven 409, one TaskCreated', async (t) => {
  const { api, account } = await aCaller(service.infra, service.url)
  const body = brief(await aSession(api))
  const responses = await Promise.all(Array.from({ length: 8 }, () => postTask(api, body)))
  t.same(tally(responses), { 201: 1, 409: 7 })
  const created = responses.find((r) => r.status === 201)?.body as { task: { id: string } }
  for (const res of responses.filter((r) => r.status === 409)) {
    t.match(res.body, { error: /identical task is already pending/ }, '409 says an identical task is pending')
    t.same(res.body, { error: res.body.error, code: 'identical_task_pending', existingTaskId: created.task.id }, 'and names it, for programs: { error, code, existingTaskId }')
  }
  t.equal(await taskCreatedCount(account.id), 1, 'exactly one TaskCreated stored')
})

t.test('identity (identity.ts): whitespace variants and title/priority changes are identical (409); case, agent and session are not (201)', async (t) => {
  const { api, account } = await aCaller(service.infra, service.url)
  const sessionId = await aSession(api)
  const instruction = 'Write a launch post for the spring campaign'
  t.equal((await postTask(api, { sessionId, instruction })).status, 201, 'the original')
  const identical: [string, Record<string, unknown>][] = [
    ['the same again', { sessionId, instruction }],
    ['the default agent named explicitly', { sessionId, instruction, agentType: 'growth-marketer' }],
    ['extra spaces', { sessionId, instruction: 'Write  a   launch post for the spring    campaign' }],
    ['a tab and a newline', { sessionId, instruction: 'Write a\tlaunch post\nfor the spring\r\ncampaign' }],
    ['leading and trailing whitespace', { sessionId, instruction: `  \n\t${instruction} \n ` }],
    ['another title and priority', { sessionId, instruction, title: 'Spring', priority: 'high' }],
  ]
  for (const [what, body] of identical) {
    const res = await postTask(api, body)
    t.equal(res.status, 409, `${what}: 409`)
    t.match(res.body, { error: /identical task is already pending/ }, `${what}: says why`)
  }
  const different: [string, Record<string, unknown>][] = [
    ['different case', { sessionId, instruction: instruction.toLowerCase() }],
    ['another agentType', { sessionId, instruction, agentType: 'organic-social' }],
    ['another session', { sessionId: await aSession(api), instruction }],
  ]
  for (const [what, body] of different) t.equal((await postTask(api, body)).status, 201, `${what}: 201`)
  t.equal(await taskCreatedCount(account.id), 4, 'the original and the three different ones')
})

t.test('8 concurrent identical POSTs alternating between two API processes: still exactly one 201', async (t) => {
  const second = await startTestService(t, servers, { roles: ['api'] })
  const { api, account, key } = await aCaller(service.infra, service.url)
  const apis = [api, new ApiClient(second.url, key.key)]
  const body = brief(await aSession(api))
  const responses = await Promise.all(Array.from({ length: 8 }, (_, i) => postTask(apis[i % 2] ?? api, body)))
  t.same(tally(responses), { 201: 1, 409: 7 })
  t.equal(await taskCreatedCount(account.id), 1, 'exactly one TaskCreated stored')
})

t.test('waitSeconds: 2 with no worker holds the response about 2 s, then answers 201 pending', async (t) => {
  const { api } = await aCaller(service.infra, service.url)
  const sessionId = await aSession(api)
  const started = performance.now()
  const res = await postTask(api, brief(sessionId, { waitSeconds: 2 }))
  const elapsed = performance.now() - started
  t.equal(res.status, 201)
  t.equal(res.body.task?.status, 'pending')
  t.ok(elapsed >= 2000, `waited at least 2 s (${Math.round(elapsed)} ms)`)
  t.ok(elapsed < 4000, `answered within about 2 s more (${Math.round(elapsed)} ms)`)
})

t.test('read-your-writes under load: 1000 POST-then-GET pairs, 10 at a time, never a 404', async (t) => {
  const { api } = await aCaller(service.infra, service.url)
  const sessionId = await aSession(api)
  const problems: string[] = []
  let notFound = 0
  let settledAfter503 = 0
  let next = 0
  const lane = async () => {
    for (let i = next++; i < 1000; i = next++) {
      const created = await postTask(api, { sessionId, instruction: `Pair ${i}: a post about feature ${i}` })
      // A 503 in doubt whose append landed after all (ADR 0046): the helper's retry, with the
      // Idempotency-Key it sends, is answered that task (201, replayed); the read must find it.
      const id = created.status === 201 ? created.body.task?.id : undefined
      if (id === undefined) {
        problems.push(`POST ${i}: ${created.status} ${JSON.stringify(created.body).slice(0, 200)}`)
        continue
      }
      if (created.headers.get('idempotent-replayed') === 'true') settledAfter503++
      const read = await api.get<TaskReply>(`/v1/tasks/${id}`)
      if (read.status === 404) notFound++
      else if (read.status !== 200 || read.body.task?.id !== id) problems.push(`GET ${i}: ${read.status} ${read.body.task?.id}`)
    }
  }
  const started = performance.now()
  await Promise.all(Array.from({ length: 10 }, lane))
  const elapsed = performance.now() - started
  t.comment(`1000 POST-then-GET pairs, 10 concurrent: ${Math.round(elapsed)} ms (${(elapsed / 1000).toFixed(1)} ms per pair); ${settledAfter503} stored after a 503 and answered to the retry`)
  t.equal(notFound, 0, 'no GET after a 201 answered 404')
  t.same(problems.slice(0, 5), [], 'every POST was a 201 and every GET showed the same id')
})

t.test('GET /v1/tasks/{taskId}: 400 for a malformed id, 404 for an unknown or foreign task, alike', async (t) => {
  const alice = await aCaller(service.infra, service.url)
  const bob = await aCaller(service.infra, service.url)
  const bobTask = createdId(await postTask(bob.api, brief(await aSession(bob.api))))
  const malformed = await alice.api.get<TaskReply>('/v1/tasks/not-a-uuid')
  t.equal(malformed.status, 400)
  t.match(malformed.body, { error: /^params\.taskId: / }, 'names params.taskId')
  const unknown = await alice.api.get<TaskReply>(`/v1/tasks/${randomUUID()}`)
  const foreign = await alice.api.get<TaskReply>(`/v1/tasks/${bobTask}`)
  t.equal(unknown.status, 404)
  t.equal(foreign.status, 404, 'another account’s task is a 404')
  t.same(unknown.body, { error: 'task not found', code: 'not_found' })
  t.same(foreign.body, unknown.body, 'the same body as an unknown task')
  t.equal((await bob.api.get<TaskReply>(`/v1/tasks/${bobTask}`)).status, 200, 'its owner reads it')
})

t.test('GET /v1/tasks: newest first, filters, pagination, 404 and 400, accounts apart', async (t) => {
  const alice = await aCaller(service.infra, service.url)
  const bob = await aCaller(service.infra, service.url)
  const [s1, s2] = [await aSession(alice.api), await aSession(alice.api)]
  const specs: [string, string][] = [
    [s1, 'growth-marketer'],
    [s1, 'seo'],
    [s2, 'seo'],
    [s2, 'growth-marketer'],
    [s1, 'seo'],
  ]
  const ids: string[] = []
  for (const [sessionId, agentType] of specs) ids.push(createdId(await postTask(alice.api, brief(sessionId, { agentType }))))
  const [t1, t2, t3, t4, t5] = ids
  const bobSession = await aSession(bob.api)
  const bobTask = createdId(await postTask(bob.api, brief(bobSession)))
  const list = (query: string, api = alice.api) => api.get<TaskList>(`/v1/tasks${query}`)

  const all = await list('')
  t.equal(all.status, 200)
  t.same(idsOf(all), [t5, t4, t3, t2, t1], 'newest first')
  t.same(all.body.pagination, { page: 1, limit: 25, total: 5, totalPages: 1, totalExact: true, nextCursor: null }, 'defaults page 1, limit 25; one page: no next cursor')
  for (const task of all.body.tasks) t.same(Object.keys(task).sort(), TASK_FIELDS, 'listed tasks have the spec fields, parentTaskId, the re-run links and the schedule link only')
  t.same(idsOf(await list(`?sessionId=${s1}`)), [t5, t2, t1], 'by session')
  t.same(idsOf(await list('?status=pending')), [t5, t4, t3, t2, t1], 'status pending')
  const completed = await list('?status=completed')
  t.same([completed.body.tasks, completed.body.pagination.total], [[], 0], 'status completed: none yet')
  t.same(idsOf(await list('?agentType=seo')), [t5, t3, t2], 'by agent')
  t.same(idsOf(await list(`?sessionId=${s1}&status=pending&agentType=seo`)), [t5, t2], 'filters combine')

  const pages = await Promise.all([1, 2, 3].map((page) => list(`?page=${page}&limit=2`)))
  t.same(pages.map(idsOf), [[t5, t4], [t3, t2], [t1]], 'pages of 2')
  t.match(pages[1]?.body.pagination, { page: 2, limit: 2, total: 5, totalPages: 3, totalExact: true, nextCursor: String }, 'a page with more after it names the next')
  t.equal((await list('?limit=100')).status, 200, 'limit 100 is allowed')
  for (const [query, name] of [
    ['limit=101', 'limit'],
    ['limit=0', 'limit'],
    ['page=0', 'page'],
    ['status=done', 'status'],
    ['agentType=copywriter', 'agentType'],
    ['sessionId=abc', 'sessionId'],
  ]) {
    const res = await list(`?${query}`)
    t.equal(res.status, 400, `${query}: 400`)
    t.match(res.body, { error: new RegExp(`^query\\.${name}: `) }, `${query}: names query.${name}`)
  }

  const unknown = await list(`?sessionId=${randomUUID()}`)
  const foreign = await list(`?sessionId=${bobSession}`)
  t.equal(unknown.status, 404, 'an unknown session filter is a 404')
  t.equal(foreign.status, 404, 'another account’s session filter is a 404')
  t.same(foreign.body, unknown.body, 'alike')
  t.same(idsOf(await list('', bob.api)), [bobTask], 'bob sees only his task')
  t.notOk(idsOf(all).includes(bobTask), 'alice never sees bob’s task')
})

t.test('budget 0: POST /v1/tasks is a 402 naming the budget, and nothing is appended', async (t) => {
  const { api, account } = await aCaller(service.infra, service.url, { monthlyBudgetUsd: 0 })
  const res = await postTask(api, brief(await aSession(api)))
  t.equal(res.status, 402)
  t.match(res.body, { error: /budget/ })
  t.same(Object.keys(res.body).sort(), ['code', 'error'])
  t.equal((res.body as { code?: string }).code, 'budget_exhausted')
  t.equal(await taskCreatedCount(account.id), 0)
})

t.test('budget $0.025, $0.01 reserved per pending task: reserved $0, $0.01, $0.02 < $0.025 allow 3 tasks; $0.03 ≥ $0.025 refuses the 4th', async (t) => {
  const { api, account } = await aCaller(service.infra, service.url, { monthlyBudgetUsd: 0.025 })
  const sessionId = await aSession(api)
  const statuses: number[] = []
  for (let i = 0; i < 4; i++) statuses.push((await postTask(api, brief(sessionId))).status)
  t.same(statuses, [201, 201, 201, 402], 'tasks in flight count toward month-to-date spend')
  const refused = await postTask(api, brief(sessionId))
  t.match(refused.body, { error: /budget/ }, 'the 402 mentions the budget')
  t.equal(await taskCreatedCount(account.id), 3, 'the refused requests appended nothing')
})

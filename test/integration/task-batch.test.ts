import { randomUUID } from 'node:crypto'
import t from 'tap'
import { streamEvents } from '../helpers/event-log.js'
import { aCaller, aSessionBody, type Caller } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'

interface TaskView {
  id: string
  sessionId: string
  status: string
  instruction: string
}
type Result = { status: 201; task: TaskView } | { status: number; error: string; code: string; existingTaskId?: string; retryAfter?: number }
type BatchAnswer = { results: Result[] } & { error?: string; code?: string }

const servers = await startServers(t)
// No worker: every created task stays pending, holding its reservation.
const service = await startTestService(t, servers, { roles: ['api', 'projector'], env: { TASK_RESERVATION_USD: '0.01' } })
const { infra } = service

const newSession = async (caller: Caller) => (await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
const batch = (caller: Caller, tasks: unknown[], headers: Record<string, string> = {}) => caller.api.post<BatchAnswer>('/v1/tasks/batch', { tasks }, headers)
const createdIds = async () => new Set((await streamEvents(infra, 'MATS_TASKS')).filter((e) => e.type === 'TaskCreated').map((e) => e.aggregateId))

t.test('given an agency with 40 client sessions, when it sends one brief to all of them in one call, then 40 tasks are created, in order', async (t) => {
  const agency = await aCaller(infra, service.url)
  const sessions: string[] = []
  for (let i = 0; i < 40; i++) sessions.push(await newSession(agency))
  const brief = 'Draft this month’s three LinkedIn posts from the client’s latest case study'

  const sentAt = Date.now()
  const answer = await batch(
    agency,
    sessions.map((sessionId) => ({ sessionId, agentType: 'organic-social', instruction: brief })),
  )
  const ms = Date.now() - sentAt

  t.equal(answer.status, 200)
  t.equal(answer.body.results.length, 40)
  t.same(
    answer.body.results.map((result) => result.status),
    sessions.map(() => 201),
  )
  t.same(
    answer.body.results.map((result) => ('task' in result ? result.task.sessionId : null)),
    sessions,
    'each result is the task of the body at its index',
  )
  const logOrder = (await streamEvents(infra, 'MATS_TASKS')).filter((e) => e.type === 'TaskCreated').map((e) => e.aggregateId)
  const ids = answer.body.results.map((result) => ('task' in result ? result.task.id : ''))
  t.same(
    logOrder.filter((id) => ids.includes(id)),
    ids,
    'every task is in the log, stored in the order sent: one after the other',
  )
  t.comment(`40 tasks in one batch: answered in ${ms} ms`)
})

t.test('given a batch with a bad body, a foreign session and an identical brief, when it is sent, then each of those is refused alone and the others are created', async (t) => {
  const caller = await aCaller(infra, service.url)
  const stranger = await aCaller(infra, service.url)
  const sessionId = await newSession(caller)
  const foreignSession = await newSession(stranger)

  const answer = await batch(caller, [
    { sessionId, instruction: 'Write the spring sale announcement' },
    { sessionId, instruction: 'no' },
    { sessionId: foreignSession, instruction: 'Write the spring sale announcement' },
    { sessionId, instruction: 'Write the spring sale announcement' },
    { sessionId, instruction: 'Plan the spring sale ads', colour: 'red' },
    'not an object',
    { sessionId, agentType: 'seo', instruction: 'Audit the spring sale landing page' },
  ])

  t.equal(answer.status, 200)
  const [first, bad, foreign, identical, unknownField, notAnObject, last] = answer.body.results
  t.equal(first?.status, 201)
  t.match(bad, { status: 400, code: 'invalid_request', error: /^tasks\[1\]\.instruction: / }, 'the field is named with its index')
  t.match(foreign, { status: 404, code: 'not_found' }, "another account's session is not found, as in POST /v1/tasks")
  t.match(identical, { status: 409, code: 'identical_task_pending', existingTaskId: first && 'task' in first ? first.task.id : 'none' }, 'an earlier body of the batch is the pending twin')
  t.match(unknownField, { status: 400, error: /^tasks\[4\]\.colour: is not a known field/ })
  t.match(notAnObject, { status: 400, error: /^tasks\[5\]: / })
  t.match(last, { status: 201, task: { sessionId, status: 'pending' } })
})

t.test('given a budget that holds two more tasks, when a batch of four is sent, then the first two are created and the others are 402', async (t) => {
  // $0.02 of budget, $0.01 reserved per task in flight.
  const caller = await aCaller(infra, service.url, { monthlyBudgetUsd: 0.02 })
  const sessionId = await newSession(caller)

  const answer = await batch(
    caller,
    [1, 2, 3, 4].map((n) => ({ sessionId, instruction: `Write blog post number ${n}` })),
  )

  t.same(
    answer.body.results.map((result) => [result.status, 'code' in result ? result.code : 'created']),
    [
      [201, 'created'],
      [201, 'created'],
      [402, 'budget_exhausted'],
      [402, 'budget_exhausted'],
    ],
  )
})

t.test('given bodies whose outcomes are 201, 400, 404, 409 and 402 in no sorted order, when the batch is sent, then result i answers body i', async (t) => {
  // $0.03 of budget, $0.01 reserved per task in flight: the third created task spends the last of it.
  const caller = await aCaller(infra, service.url, { monthlyBudgetUsd: 0.03 })
  const sessionId = await newSession(caller)
  const bodies = [
    { sessionId, instruction: 'Write the autumn newsletter' },
    { sessionId, instruction: 'no' },
    { sessionId: randomUUID(), instruction: 'Write the autumn newsletter' },
    { sessionId, instruction: 'Write the autumn newsletter' },
    { sessionId, instruction: 'Plan the autumn webinar invitations' },
    { sessionId, instruction: 'Audit the autumn landing page', priority: 'soon' },
    { sessionId, instruction: 'Draft the autumn sale ads' },
    { sessionId, instruction: 'Draft the winter sale ads' },
    { sessionId, instruction: 'x' },
  ]

  const answer = await batch(caller, bodies)

  t.equal(answer.status, 200)
  const results = answer.body.results
  t.same(
    results.map((result) => result.status),
    [201, 400, 404, 409, 201, 400, 201, 402, 400],
    'each status at the index of its body, neither sorted nor grouped',
  )
  for (const [i, result] of results.entries()) {
    if ('task' in result) t.equal(result.task.instruction, bodies[i]?.instruction, `result ${i} is the task of body ${i}`)
    else if (result.status === 400) t.match(result.error, new RegExp(`^tasks\\[${i}\\]\\.`), `result ${i} names body ${i}'s field`)
  }
  const first = results[0]
  t.match(results[3], { code: 'identical_task_pending', existingTaskId: first && 'task' in first ? first.task.id : 'none' }, "body 3's twin is the task of body 0")
  t.match(results[7], { code: 'budget_exhausted' }, 'the budget ran out after the third created task')
  const created = results.flatMap((result) => ('task' in result ? [result.task.id] : []))
  const logOrder = (await streamEvents(infra, 'MATS_TASKS')).filter((e) => e.type === 'TaskCreated').map((e) => e.aggregateId)
  t.same(
    logOrder.filter((id) => created.includes(id)),
    created,
    'created in the order sent',
  )
})

t.test('given an Idempotency-Key, when a batch is sent twice, then the second answer replays the first and creates nothing', async (t) => {
  const caller = await aCaller(infra, service.url)
  const sessionId = await newSession(caller)
  const tasks = [
    { sessionId, instruction: 'Write the hiring post' },
    { sessionId, instruction: 'x' },
  ]
  const key = { 'idempotency-key': randomUUID() }

  const first = await batch(caller, tasks, key)
  const before = await createdIds()
  const again = await batch(caller, tasks, key)
  const after = await createdIds()
  const changed = await batch(caller, [tasks[0]], key)

  t.equal(first.status, 200)
  t.equal(again.status, 200)
  t.equal(again.headers.get('idempotent-replayed'), 'true')
  t.same(again.body, first.body, 'the same results, the same task ids')
  t.equal(after.size, before.size, 'no task was created by the retry')
  t.match(changed, { status: 422, body: { code: 'idempotency_key_reused' } }, 'the key with another batch is refused')
})

t.test('given a malformed batch, when it is sent, then it is a 400 naming the field and nothing is created', async (t) => {
  const caller = await aCaller(infra, service.url)
  const sessionId = await newSession(caller)
  const body = { sessionId, instruction: 'Write the hiring post' }

  const cases: [unknown, RegExp][] = [
    [{ tasks: [] }, /^body\.tasks: /],
    [{ tasks: Array.from({ length: 101 }, () => body) }, /^body\.tasks: /],
    [{}, /^body\.tasks: is required/],
    [{ tasks: [body], extra: 1 }, /^body\.extra: is not a known field/],
    [{ tasks: body }, /^body\.tasks: /],
  ]
  const before = await createdIds()
  for (const [sent, error] of cases) t.match(await caller.api.post('/v1/tasks/batch', sent), { status: 400, body: { code: 'invalid_request', error } }, JSON.stringify(sent).slice(0, 60))
  t.equal((await createdIds()).size, before.size)
})

t.test('given a tasks.create limit of 3 a minute, when batches are sent, then each body counts: the fourth is a 429, and a batch with none admitted is a 429 whole', async (t) => {
  const limited = await startTestService(t, servers, { roles: ['api'], env: { RATE_LIMIT_TASKS_CREATE_PER_MIN: '3' } })
  const caller = await aCaller(infra, limited.url)
  const sessionId = await newSession(caller)
  const key = { 'idempotency-key': randomUUID() }

  const first = await batch(
    caller,
    [1, 2, 3, 4, 5].map((n) => ({ sessionId, instruction: `Write tweet number ${n}` })),
  )
  const refused = await batch(caller, [{ sessionId, instruction: 'Write tweet number 6' }], key)
  const single = await caller.api.post('/v1/tasks', { sessionId, instruction: 'Write tweet number 7' })

  t.same(
    first.body.results.map((result) => result.status),
    [201, 201, 201, 429, 429],
  )
  t.match(first.body.results[3], { code: 'rate_limited', retryAfter: Number })
  t.match(first.headers.get('ratelimit'), /^"tasks.create";r=0;/, 'the RateLimit field tells what is left')
  t.match(refused, { status: 429, body: { code: 'rate_limited' } })
  t.ok(Number(refused.headers.get('retry-after')) >= 1, 'with Retry-After')
  t.equal(single.status, 429, 'POST /v1/tasks shares the quota')
  // The refused batch did nothing: its key is free for the retry (a later one, once admitted).
  const retried = await batch(caller, [{ sessionId, instruction: 'Write tweet number 6' }], key)
  t.not(retried.headers.get('idempotent-replayed'), 'true', 'a 429 is not stored as the answer of its key')
})

// Last: its worker runs whatever the earlier tests left pending.
t.test('given bodies with waitSeconds, when the batch is sent, then the waits run together and the answer shows the tasks ended', async (t) => {
  const worker = await startTestService(t, servers, { roles: ['api', 'worker'], env: { OFFLINE_AGENT_LATENCY_MS: '1500' } })
  const caller = await aCaller(infra, worker.url)
  const sessionId = await newSession(caller)

  const sentAt = Date.now()
  const answer = await batch(caller, [
    { sessionId, agentType: 'seo', instruction: 'Audit the pricing page titles', waitSeconds: 30 },
    { sessionId, agentType: 'cro', instruction: 'Review the signup form', waitSeconds: 30 },
    { sessionId, agentType: 'creative', instruction: 'Sketch three banner ideas' },
  ])
  const ms = Date.now() - sentAt

  t.same(
    answer.body.results.map((result) => ('task' in result ? result.task.status : result.status)),
    ['completed', 'completed', 'pending'],
    'the bodies that asked to wait show their end; the other as created',
  )
  t.comment(`answered in ${ms} ms (the worker also runs the tasks the earlier tests left pending)`)
})

import { connect, type NatsConnection } from '@nats-io/transport-node'
import t, { type Test } from 'tap'
import { monthToDate } from '../../src/commands/create-task/budget.js'
import type { EventEnvelope, RecordedEvent } from '../../src/domain/message.js'
import type { AppContext } from '../../src/app-context.js'
import { readTaskFromLog } from '../../src/queries/read-task.js'
import type { ApiClient } from '../helpers/http.js'
import { aCaller, aSessionBody, type Caller } from '../helpers/mothers.js'
import { startServers, type TestServers } from '../helpers/servers.js'
import { startTestService, type TestService } from '../helpers/service.js'
import { streamEvents } from '../helpers/event-log.js'
import { until } from '../helpers/wait.js'

interface TaskView {
  id: string
  status: string
  result: string | null
  error: string | null
  createdAt: string | null
  startedAt: string | null
  completedAt: string | null
}
interface TaskBody {
  sessionId: string
  instruction: string
  priority?: string
  waitSeconds?: number
}
interface Usage {
  provider: string
  model: string
  inputTokens: number
  outputTokens: number
}

const STREAM = 'MATS_TASKS'
/** Every task id this file created, and the task log of every server set it used (invariant 3). */
const createdIds = new Set<string>()
const logs: RecordedEvent[][] = []

interface Group {
  servers: TestServers
  service: TestService
  infra: AppContext
  worker: NonNullable<TestService['worker']>
}

/** Servers and one service (api, worker, projector) with its own worker configuration. */
async function group(t: Test, env: Record<string, string>): Promise<Group> {
  const servers = await startServers(t)
  const service = await startTestService(t, servers, { env })
  if (!service.worker) throw new Error('the worker role is not running')
  return { servers, service, infra: service.infra, worker: service.worker }
}

/** A caller (account + key) with one session. */
async function customer(g: Group, monthlyBudgetUsd?: number): Promise<Caller & { sessionId: string }> {
  const caller = await aCaller(g.infra, g.service.url, monthlyBudgetUsd === undefined ? {} : { monthlyBudgetUsd })
  const session = await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())
  return { ...caller, sessionId: session.body.session.id }
}

async function postTask(api: ApiClient, body: TaskBody) {
  const res = await api.post<{ task: TaskView }>('/v1/tasks', body)
  if (res.status === 201) createdIds.add(res.body.task.id)
  return res
}

async function getTask(api: ApiClient, id: string): Promise<TaskView> {
  return (await api.get<{ task: TaskView }>(`/v1/tasks/${id}`)).body.task
}

const untilStatus = (api: ApiClient, id: string, status: string, timeoutMs = 10_000) =>
  until(
    `task ${id} to be ${status}`,
    async () => {
      const task = await getTask(api, id)
      return task.status === status && task
    },
    timeoutMs,
  )

/** A downstream service's own NATS connection. */
async function downstream(t: Test, servers: TestServers): Promise<NatsConnection> {
  const nc = await connect({ servers: servers.natsUrl })
  t.teardown(() => nc.close())
  return nc
}

/** Collects every event published on `subject` (as `map` of it), subscribed and flushed before returning. */
async function listen<T = { subject: string; event: EventEnvelope }>(nc: NatsConnection, subject: string, map?: (subject: string, event: EventEnvelope) => T): Promise<T[]> {
  const seen: T[] = []
  const as = map ?? ((subject: string, event: EventEnvelope) => ({ subject, event }) as T)
  nc.subscribe(subject, {
    callback: (err, msg) => {
      if (!err) seen.push(as(msg.subject, msg.json<EventEnvelope>()))
    },
  })
  await nc.flush()
  return seen
}

/** The aggregate ids of TaskStarted events on `subject`, in the order they were published. */
const startedOrder = (nc: NatsConnection, subject: string) => listen(nc, subject, (_, event) => event.aggregateId)

/** Stops the worker (letting runs finish) and keeps this server set's task log for the invariant-3 check. */
async function keepLog(g: Group): Promise<void> {
  await g.worker.stop(15_000)
  logs.push(await streamEvents(g.infra, STREAM))
}

const shared = await group(t, { OFFLINE_AGENT_LATENCY_MS: '300', TASK_RESERVATION_USD: '0', OFFLINE_PRICE_OUTPUT_PER_MTOK_USD: '100' })

t.test('given a worker whose runs take 1.5 s, when a task is posted, then it goes pending → running → completed with its result and timestamps', async (t) => {
  const g = await group(t, { OFFLINE_AGENT_LATENCY_MS: '1500' })
  const { api, sessionId } = await customer(g)
  const created = await postTask(api, { sessionId, instruction: 'Plan a launch week for our rocket kit' })
  t.equal(created.status, 201)
  t.equal(created.body.task.status, 'pending', 'the 201 shows it pending')
  const running = await untilStatus(api, created.body.task.id, 'running')
  t.equal(running.result, null, 'no result while running')
  t.equal(running.completedAt, null)
  t.match(running.startedAt, /^\d{4}-\d{2}-\d{2}T/, 'startedAt is set once running')
  const done = await untilStatus(api, created.body.task.id, 'completed')
  t.match(done.result, /no language model produced/i, 'the result is Markdown saying no language model produced it')
  t.match(done.result, /^#/m, 'the result is Markdown')
  t.equal(done.error, null)
  t.match(done.startedAt, /^\d{4}-\d{2}-\d{2}T/)
  t.match(done.completedAt, /^\d{4}-\d{2}-\d{2}T/)
  t.ok(Date.parse(done.completedAt ?? '') >= Date.parse(done.startedAt ?? '') + 1400, 'completedAt follows startedAt by the run time')
  await keepLog(g)
})

t.test('given runs of 300 ms, when a task is posted with waitSeconds 30, then the 201 comes as soon as it completes', async (t) => {
  const { api, sessionId } = await customer(shared)
  const began = Date.now()
  const res = await postTask(api, { sessionId, instruction: 'Write three subject lines for a spring sale', waitSeconds: 30 })
  const elapsed = Date.now() - began
  t.equal(res.status, 201)
  t.equal(res.body.task.status, 'completed')
  t.type(res.body.task.result, 'string')
  t.ok(elapsed < 5000, `answered in ${elapsed} ms, well under 30 s`)
})

t.test('given a downstream subscriber on the account and on all completions, when a task runs, then it sees Created, Started, Completed envelopes in order', async (t) => {
  const { api, sessionId, account } = await customer(shared)
  const nc = await downstream(t, shared.servers)
  const ofAccount = await listen(nc, `mats.task.${account.id}.>`)
  const completions = await listen(nc, 'mats.task.*.*.TaskCompleted')
  const res = await postTask(api, { sessionId, instruction: 'Audit our paid search campaigns', waitSeconds: 30 })
  t.equal(res.body.task.status, 'completed')
  const id = res.body.task.id
  await until('three events of the task', () => ofAccount.filter((m) => m.event.aggregateId === id).length >= 3)
  const mine = ofAccount.filter((m) => m.event.aggregateId === id)
  t.same(
    mine.map((m) => m.event.type),
    ['TaskCreated', 'TaskStarted', 'TaskCompleted'],
  )
  for (const { subject, event } of mine) {
    t.equal(subject, `mats.task.${account.id}.${id}.${event.type}`, `${event.type}: subject scheme`)
    t.match(
      event,
      { id: /^[0-9a-f-]{36}$/, type: String, version: Number, occurredAt: /^\d{4}-\d{2}-\d{2}T/, accountId: account.id, aggregateId: id, data: Object, metadata: { correlationId: String } },
      `${event.type}: full envelope`,
    )
  }
  const completed = mine[2]?.event.data as { result: string; usage: Usage; costMicros: number }
  t.match(completed.result, /no language model produced/i)
  t.match(completed.usage, { provider: 'offline', model: String, inputTokens: Number, outputTokens: Number })
  t.ok(completed.usage.inputTokens > 0 && completed.usage.outputTokens > 0, 'token counts are positive')
  t.ok(completed.costMicros > 0, 'costMicros > 0')
  await until('the completion on mats.task.*.*.TaskCompleted', () => completions.some((m) => m.event.aggregateId === id))
  t.equal(completions.find((m) => m.event.aggregateId === id)?.subject, `mats.task.${account.id}.${id}.TaskCompleted`)
})

t.test('given a budget smaller than one run, when a task completes, then the next POST is 402 and month-to-date spend is its cost', async (t) => {
  const { api, sessionId, account } = await customer(shared, 0.011)
  const first = await postTask(api, { sessionId, instruction: 'Draft a cold email sequence', waitSeconds: 30 })
  t.equal(first.status, 201)
  t.equal(first.body.task.status, 'completed', 'the first task runs although it costs more than the budget')
  const next = await postTask(api, { sessionId, instruction: 'Draft a follow-up email sequence' })
  t.equal(next.status, 402, 'the very next POST is over budget')
  t.match(next.body, { error: /budget/ })
  const doc = await readTaskFromLog(shared.infra, account.id, first.body.task.id)
  t.ok((doc?.costMicros ?? 0) > 11_000, `one run cost ${doc?.costMicros} micro-USD, more than the budget`)
  const spend = await monthToDate(shared.infra, account.id, new Date())
  t.equal(spend.budgetMicros, 11_000)
  t.equal(spend.spentMicros, doc?.costMicros, 'month-to-date spend is exactly the run cost')
  t.equal(spend.reservedMicros, 0)
})

t.test('given one slot busy, when ten normal tasks then one high task arrive, then the high one starts next', async (t) => {
  const g = await group(t, { WORKER_CONCURRENCY: '1', OFFLINE_AGENT_LATENCY_MS: '2000' })
  const { api, sessionId, account } = await customer(g)
  const starts = await startedOrder(await downstream(t, g.servers), `mats.task.${account.id}.*.TaskStarted`)
  const first = (await postTask(api, { sessionId, instruction: 'First brief, runs at once' })).body.task.id
  await untilStatus(api, first, 'running')
  const began = Date.now()
  for (let i = 0; i < 10; i++) t.equal((await postTask(api, { sessionId, instruction: `Normal brief number ${i}` })).status, 201, `normal task ${i} created`)
  const high = await postTask(api, { sessionId, instruction: 'Urgent: fix the landing page', priority: 'high' })
  t.equal(high.status, 201)
  t.equal((await readTaskFromLog(g.infra, account.id, first))?.status, 'running', `the first run was still going when the high task arrived (${Date.now() - began} ms later)`)
  await until('a second task to start', () => starts.length >= 2)
  t.same(starts.slice(0, 2), [first, high.body.task.id], 'after the first, the high task starts before any normal one')
  await keepLog(g)
})

t.test('given one slot and account A with 30 waiting tasks, when account B posts one, then B starts within the next 2 starts', async (t) => {
  const g = await group(t, { WORKER_CONCURRENCY: '1', OFFLINE_AGENT_LATENCY_MS: '200' })
  const a = await customer(g)
  const b = await customer(g)
  // One connection, so TaskStarted and B's TaskCreated arrive in the order they were published.
  const nc = await downstream(t, g.servers)
  const order: string[] = []
  nc.subscribe('mats.task.*.*.TaskStarted', {
    callback: (_, msg) => {
      order.push(msg.json<EventEnvelope>().aggregateId)
    },
  })
  nc.subscribe(`mats.task.${b.account.id}.*.TaskCreated`, {
    callback: () => {
      order.push('B created')
    },
  })
  await nc.flush()
  for (let i = 0; i < 30; i++) t.equal((await postTask(a.api, { sessionId: a.sessionId, instruction: `A's brief number ${i}` })).status, 201)
  const bTask = (await postTask(b.api, { sessionId: b.sessionId, instruction: "B's only brief" })).body.task.id
  await until("B's task to start", () => order.includes(bTask))
  const starts = order.filter((x) => x !== 'B created')
  const after = order.slice(order.indexOf('B created') + 1)
  t.ok(after.slice(0, 2).includes(bTask), `B was start number ${after.indexOf(bTask) + 1} after its creation`)
  t.ok(30 - starts.indexOf(bTask) >= 10, `A still had ${30 - starts.indexOf(bTask)} tasks not started when B started`)
  await keepLog(g)
})

t.test('given a 1 s time limit and 10 s runs, when a task runs, then it fails for the time limit within ~3 s', async (t) => {
  const g = await group(t, { TASK_TIMEOUT_MS: '1000', OFFLINE_AGENT_LATENCY_MS: '10000' })
  const { api, sessionId } = await customer(g)
  const began = Date.now()
  const res = await postTask(api, { sessionId, instruction: 'A brief that takes too long', waitSeconds: 10 })
  const elapsed = Date.now() - began
  t.equal(res.body.task.status, 'failed')
  t.match(res.body.task.error, /time limit/)
  t.equal(res.body.task.result, null)
  t.ok(elapsed < 3000, `failed after ${elapsed} ms`)
  await keepLog(g)
})

t.test('given a worker stopping with a long grace, when 2 tasks run and 2 wait, then the running complete and the waiting stay pending', async (t) => {
  const g = await group(t, { WORKER_CONCURRENCY: '2', OFFLINE_AGENT_LATENCY_MS: '1500' })
  const { api, sessionId, account } = await customer(g)
  const ids: string[] = []
  for (let i = 0; i < 4; i++) ids.push((await postTask(api, { sessionId, instruction: `Shutdown brief ${i}` })).body.task.id)
  const statuses = () => Promise.all(ids.map(async (id) => (await readTaskFromLog(g.infra, account.id, id))?.status))
  const seen = await until('two tasks running', async () => {
    const s = await statuses()
    return s.filter((x) => x === 'running').length === 2 && s
  })
  const running = ids.filter((_, i) => seen[i] === 'running')
  const waiting = ids.filter((_, i) => seen[i] === 'pending')
  t.equal(waiting.length, 2, 'the other two wait')
  await g.worker.stop(5000)
  for (const id of running) t.equal((await readTaskFromLog(g.infra, account.id, id))?.status, 'completed', `running task ${id} completed within the grace`)
  for (const id of waiting) {
    const doc = await readTaskFromLog(g.infra, account.id, id)
    t.equal(doc?.status, 'pending', `waiting task ${id} was handed back`)
    t.equal(doc?.startedAt, null, `waiting task ${id} never started`)
  }
  await keepLog(g)
})

t.test('given a worker stopping with a 200 ms grace, when 10 s runs are going, then they fail saying the worker shut down', async (t) => {
  const g = await group(t, { WORKER_CONCURRENCY: '2', OFFLINE_AGENT_LATENCY_MS: '10000' })
  const { api, sessionId, account } = await customer(g)
  const ids = [(await postTask(api, { sessionId, instruction: 'Long brief one' })).body.task.id, (await postTask(api, { sessionId, instruction: 'Long brief two' })).body.task.id]
  for (const id of ids) await until(`${id} running`, async () => (await readTaskFromLog(g.infra, account.id, id))?.status === 'running')
  const began = Date.now()
  await g.worker.stop(200)
  t.ok(Date.now() - began < 3000, `stop returned after ${Date.now() - began} ms`)
  for (const id of ids) t.match(await readTaskFromLog(g.infra, account.id, id), { status: 'failed', error: /worker shut down/ }, `${id} failed`)
  const log = await streamEvents(g.infra, STREAM)
  const open = ids.filter((id) => !log.some((e) => e.aggregateId === id && (e.type === 'TaskCompleted' || e.type === 'TaskFailed')))
  t.same(open, [], 'no task is left running')
  await keepLog(g)
})

t.test('given everything this file did, then each task has one TaskCreated, at most one TaskStarted, one terminal event once started, nothing after it', async (t) => {
  await keepLog(shared)
  t.equal(logs.length, 7, 'the logs of all seven server sets were read')
  const byTask = new Map<string, string[]>()
  for (const event of logs.flat()) byTask.set(event.aggregateId, [...(byTask.get(event.aggregateId) ?? []), event.type])
  for (const id of createdIds) t.ok(byTask.has(id), `created task ${id} is in a log`)
  t.equal(byTask.size, createdIds.size, `the logs hold exactly the ${createdIds.size} tasks created`)
  const TERMINAL = ['TaskCompleted', 'TaskFailed']
  const broken = [...byTask].filter(([, types]) => {
    const count = (type: string) => types.filter((x) => x === type).length
    const terminals = types.filter((x) => TERMINAL.includes(x)).length
    const lastTerminal = types.findIndex((x) => TERMINAL.includes(x))
    return (
      types[0] !== 'TaskCreated' ||
      count('TaskCreated') !== 1 ||
      count('TaskStarted') > 1 ||
      terminals !== count('TaskStarted') ||
      (lastTerminal !== -1 && lastTerminal !== types.length - 1) ||
      (count('TaskStarted') === 1 && types.indexOf('TaskStarted') !== 1)
    )
  })
  t.same(broken, [], 'no task breaks invariant 3')
})

t.test('a GET right after a waitSeconds answer never shows an older state than that answer', async (t) => {
  const g = await startServers(t)
  const service = await startTestService(t, g, { env: { OFFLINE_AGENT_LATENCY_MS: '5' } })
  const { api } = await aCaller(service.infra, service.url)
  const sessionId = (await api.post<{ session: { id: string } }>('/v1/sessions', { name: 'monotonic' })).body.session.id
  for (let i = 0; i < 30; i++) {
    const posted = await api.post<{ task: { id: string; status: string } }>('/v1/tasks', { sessionId, instruction: `Monotonic read ${i}`, waitSeconds: 20 })
    t.equal(posted.body.task.status, 'completed', `task ${i} answered completed`)
    const got = await api.get<{ task: { status: string } }>(`/v1/tasks/${posted.body.task.id}`)
    t.equal(got.body.task.status, 'completed', `task ${i}: the GET that follows agrees`)
  }
})

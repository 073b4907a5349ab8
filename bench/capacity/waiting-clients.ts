// Issue 22, target 5: what waiting clients cost one API process. WAITS concurrent POST /v1/tasks
// with waitSeconds=120 and STREAMS open Server-Sent Event streams (half per task, half account
// feeds) against one API process of its own (waiting-clients-api.ts: a child, the projector in another, so that its memory
// is its own); the bench then ends every task in the log itself and measures how long after the
// tasks projection stored each end its answer and each stream's TaskCompleted arrive. Prints the
// API process's live memory per open client (after a forced GC), the p50/p99 of those latencies,
// and what is left in the process and on the server once the clients went.
//   WAITS=2000 STREAMS=2000 ACCOUNTS=20 TARGETS=waiting-clients npm run bench:capacity
//   INSTRUCTION_CHARS=4000 gives each task an instruction that long (41 by default).
//   HEAP_SNAPSHOTS=/tmp/snaps also writes the API's heap snapshots, idle and with every client open.
import pino from 'pino'
import { connectApp, type AppContext } from '../../src/app-context.js'
import { createAccount } from '../../src/commands/create-account/create-account.js'
import { createApiKey } from '../../src/commands/create-api-key/create-api-key.js'
import { operator } from '../../src/commands/execute.js'
import { loadConfig } from '../../src/config.js'
import { Task, type TaskEvent } from '../../src/domain/tasks/task.js'
import { LogReader } from '../../src/infra/nats/log-reader.js'
import { accountSubjects } from '../../src/infra/nats/subjects.js'
import { liveEventConsumers } from '../../src/queries/live-tap.js'
import { benchServers } from '../harness.js'
import { percentile } from '../stats.js'
import { epochMs, startApi, type ApiProcess, type ApiState } from './waiting-clients-api.js'
import { aggregateOf, Failures, paced, readFrames } from './waiting-clients-clients.js'

const API_ENV = {
  SSE_MAX_STREAMS_PER_ACCOUNT: '100000',
  RATE_LIMIT_TASKS_CREATE_PER_MIN: '1000000',
  RATE_LIMIT_TASKS_READ_PER_MIN: '1000000',
  LIVE_EVENTS_IDLE_MS: '1000',
  TASK_EVENTS_HEARTBEAT_MS: '15000',
}
/** An instruction's length (INSTRUCTION_CHARS, 4 to 4,000): what each task's events, and what a client holding them, weigh. */
const INSTRUCTION_CHARS = Number(process.env.INSTRUCTION_CHARS ?? 41)
/** Connections opened at once: below node's listen backlog (511), so that no SYN is dropped. */
const OPENING = 64

interface Caller {
  readonly accountId: string
  readonly headers: Record<string, string>
  readonly sessionId: string
}

async function aCaller(ctx: AppContext, url: string): Promise<Caller> {
  const account = await createAccount(ctx, { name: 'waiting clients', monthlyBudgetUsd: 1_000_000 }, operator())
  const { key } = await createApiKey(ctx, { accountId: account.id, name: 'bench' }, operator())
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' }
  const res = await postRetried(`${url}/v1/sessions`, headers, JSON.stringify({ name: 'bench' }))
  const { session } = (await res.json()) as { session?: { id: string } }
  if (!session) throw new Error(`POST /v1/sessions answered ${res.status}`)
  return { accountId: account.id, headers, sessionId: session.id }
}

/** POST /v1/tasks with one Idempotency-Key for all its tries. */
function post(url: string, caller: Caller, body: Record<string, unknown>): Promise<Response> {
  const headers = { ...caller.headers, 'idempotency-key': crypto.randomUUID() }
  const instruction = `Wait ${crypto.randomUUID()} `.padEnd(INSTRUCTION_CHARS, 'and write the launch posts ')
  return postRetried(`${url}/v1/tasks`, headers, JSON.stringify({ sessionId: caller.sessionId, instruction, ...body }))
}

/** A POST sent again after Retry-After (1 s without one) on a 503 (a starved machine, ADR 0035), as the spec asks clients. */
async function postRetried(url: string, headers: Record<string, string>, payload: string): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    // Connection: close, so that an answered client leaves nothing open (the API's handles are counted once the clients went).
    const res = await fetch(url, { method: 'POST', headers: { ...headers, connection: 'close' }, body: payload })
    // A 503's try may still hold its Idempotency-Key: the next try is told to wait for it (409 idempotency_key_in_flight).
    const inFlight = res.status === 409 && (await res.clone().text()).includes('idempotency_key_in_flight')
    if ((res.status !== 503 && !inFlight) || attempt === 10) return res
    await res.text()
    await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? 1) * 1000))
  }
}

async function aTaskId(url: string, caller: Caller): Promise<string> {
  const res = await post(url, caller, {})
  const body = (await res.json()) as { task?: { id: string }; existingTaskId?: string }
  // A try answered 503 whose task was stored after all, its key freed since (its outcome unknown): the next try meets it.
  const id = body.task?.id ?? body.existingTaskId
  if (!id) throw new Error(`POST /v1/tasks answered ${res.status} ${JSON.stringify(body)}`)
  return id
}

/** Every TaskCreated of the account in the log: the bench's tasks to end. */
async function createdTasks(ctx: AppContext, accountId: string): Promise<{ accountId: string; taskId: string; seq: number }[]> {
  const { events } = await new LogReader(ctx).read('MATS_TASKS', accountSubjects('task', accountId), 1)
  return events.filter((e) => e.type === 'TaskCreated').map((e) => ({ accountId, taskId: e.aggregateId, seq: e.seq }))
}

async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 300_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await check()); await new Promise((r) => setTimeout(r, 100))) if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
}

/** Ends the task in the log (started, completed) as a worker would; answers when the end was stored (epoch ms). */
async function endTask(ctx: AppContext, accountId: string, taskId: string, createdSeq: number): Promise<number> {
  const metadata = { correlationId: crypto.randomUUID(), causationId: null, keyId: null }
  const billing = { billingMonth: new Date().toISOString().slice(0, 7), reservedMicros: 10_000 }
  const completed = { result: 'done', usage: { provider: 'offline', model: 'offline', inputTokens: 1, outputTokens: 1 }, costMicros: 1, learnedFacts: [], ...billing }
  const drafts: TaskEvent[] = [
    { type: 'TaskStarted', data: { workerId: 'bench' } },
    { type: 'TaskCompleted', data: { ...completed, agentType: 'growth-marketer' } },
  ]
  await ctx.events.append(Task, { accountId, aggregateId: taskId }, drafts, { expectedVersion: createdSeq, metadata, now: new Date() })
  return epochMs()
}

const began = performance.now()
/** Where the run is, on stderr: a run that stalls says where. */
function step(what: string): void {
  process.stderr.write(`  [${((performance.now() - began) / 1000).toFixed(1)} s] ${what}\n`)
}

/** The answers' and frames' arrival times, by task. */
interface Arrivals {
  readonly waits: Map<string, number>
  readonly streams: Map<string, number>
  readonly feeds: Map<string, number[]>
}

export async function main(): Promise<void> {
  const WAITS = Number(process.env.WAITS ?? 2000)
  const STREAMS = Number(process.env.STREAMS ?? 2000)
  const ACCOUNTS = Number(process.env.ACCOUNTS ?? 20)
  const snapshots = process.env.HEAP_SNAPSHOTS
  const servers = await benchServers()
  // The projector apart: its cache of the documents it wrote (thousands of tasks here) is not the waiting clients' memory.
  const projector = await startApi(servers.natsUrl, servers.mongoUrl, API_ENV, ['projector'])
  const api = await startApi(servers.natsUrl, servers.mongoUrl, API_ENV, ['api'])
  // The bench's own appends (a worker's) get 5 s to be acknowledged on the loaded machine: an end stored but acknowledged late would have no time.
  const ctx = await connectApp(loadConfig({ NATS_URL: servers.natsUrl, MONGODB_URL: servers.mongoUrl, LOG_LEVEL: 'silent', NATS_TIMEOUT_MS: '5000' }), pino({ level: 'silent' }))
  const failures = new Failures()
  const closing = new AbortController()
  try {
    const callers: Caller[] = []
    for (let i = 0; i < ACCOUNTS; i++) callers.push(await aCaller(ctx, api.url))
    const of = (i: number) => callers[i % ACCOUNTS] as Caller
    const open = (path: string, caller: Caller) => fetch(`${api.url}${path}`, { headers: { ...caller.headers, accept: 'text/event-stream' }, signal: closing.signal })
    // Warm up: a wait, a task stream and an account feed, so that what a process opens once is open before measuring.
    await (await post(api.url, of(0), { waitSeconds: 1 })).text()
    const [warm] = await createdTasks(ctx, of(0).accountId)
    if (warm) await endTask(ctx, warm.accountId, warm.taskId, warm.seq)
    // Its task ended: the stream sends its history and ends.
    await (await open(`/v1/tasks/${warm?.taskId}/events`, of(0))).text()
    await (await open('/v1/events', of(0))).body?.cancel()
    await until('the warm-up to leave the hub, and its consumer to go', async () => {
      const s = await api.state(false)
      return s.liveReaders === 0 && !s.consuming
    })
    const idle = await api.state()
    step('idle state measured')
    if (snapshots) await api.snapshot(`${snapshots}/idle.heapsnapshot`)

    const taskStreams = Math.floor(STREAMS / 2)
    const followed = await paced(taskStreams, OPENING, (i) => aTaskId(api.url, of(i)))
    const perTask = await paced(taskStreams, OPENING, (i) => open(`/v1/tasks/${followed[i]}/events`, of(i)))
    const feeds = await paced(STREAMS - taskStreams, OPENING, (i) => open('/v1/events', of(i)))
    step(`${STREAMS} streams open`)
    // Each wait joins the hub once its task is stored: the next ones are sent once those are held, OPENING at a time.
    const waits: Promise<{ taskId: string; status: string; at: number }>[] = []
    for (let i = 0; i < WAITS; i += OPENING) {
      for (let j = i; j < Math.min(WAITS, i + OPENING); j++) waits.push(aWait(api, of(j), failures))
      const held = STREAMS + waits.length
      await until(`${held} clients to be held`, async () => (await api.state(false)).liveReaders >= held || api.exit() !== null)
      if (api.exit() !== null) throw new Error(`the API process exited (${api.exit()}) with ${held} clients opening`)
    }
    const clients = WAITS + STREAMS
    step(`${clients} clients held`)
    const held = await api.state()
    const consumersOpen = (await liveEventConsumers(ctx.jsm)).length
    if (snapshots) await api.snapshot(`${snapshots}/open.heapsnapshot`)

    const arrivals: Arrivals = { waits: new Map(), streams: new Map(), feeds: new Map() }
    const streamReads = perTask.map((res, i) =>
      readFrames(
        res,
        ['TaskCompleted'],
        (_, at) => {
          arrivals.streams.set(followed[i] ?? '', at)
          return true
        },
        closing.signal,
      ).catch((err: unknown) => failures.of(err)),
    )
    const feedReads = feeds.map((res) =>
      readFrames(
        res,
        ['TaskCompleted'],
        (frame, at) => {
          const id = aggregateOf(frame)
          if (id) arrivals.feeds.set(id, [...(arrivals.feeds.get(id) ?? []), at])
          return false
        },
        closing.signal,
      ).catch((err: unknown) => failures.of(err)),
    )
    const storedAt = new Map<string, number>()
    // In the order they were created: the waits held longest end first, well inside their waitSeconds.
    const tasks = (await Promise.all(callers.map((c) => createdTasks(ctx, c.accountId))))
      .flat()
      .filter((t) => t.taskId !== warm?.taskId)
      .sort((a, b) => a.seq - b.seq)
    step(`ending ${tasks.length} tasks`)
    await paced(tasks.length, 64, async (i) => {
      const { accountId, taskId, seq } = tasks[i] ?? { accountId: '', taskId: '', seq: 0 }
      storedAt.set(taskId, await endTask(ctx, accountId, taskId, seq).catch(() => Number.NaN))
    })
    step('tasks ended')
    for (const answer of await Promise.all(waits)) if (answer.status === 'completed') arrivals.waits.set(answer.taskId, answer.at)
    step('waits answered')
    await Promise.all(streamReads)
    step('task streams ended')
    await until('every end to be projected', () => tasks.every((t) => projector.projectedAt.has(t.taskId)), 60_000).catch(() => undefined)
    closing.abort()
    await Promise.allSettled(feedReads)

    await until(
      'every client to leave the hub, and its consumer to go',
      async () => {
        const s = await api.state(false)
        return s.liveReaders === 0 && !s.consuming
      },
      30_000,
    ).catch(() => undefined)
    const after = await api.state()
    const left = (await liveEventConsumers(ctx.jsm)).length
    report({ WAITS, STREAMS, ACCOUNTS, taskStreams, clients }, { idle, held, after }, { consumersOpen, left }, arrivals, storedAt, projector.projectedAt, failures)
  } finally {
    closing.abort()
    // The API first, then the servers: stopped under it, it would fail on its way out (ECONNREFUSED from NATS or MongoDB).
    await api.stop()
    await projector.stop()
    await ctx.close()
    await servers.stop()
  }
}

/** One waitSeconds=120 POST (the most allowed: ending thousands of tasks takes a while on a loaded machine); a failure is counted by its cause, never thrown (an unhandled rejection would end the bench with it). */
async function aWait(api: ApiProcess, caller: Caller, failures: Failures): Promise<{ taskId: string; status: string; at: number }> {
  try {
    const res = await post(api.url, caller, { waitSeconds: 120 })
    const body = (await res.json()) as { task?: { id: string; status: string } }
    const at = epochMs()
    if (body.task?.status !== 'completed') failures.add(`wait answered ${body.task?.status ?? res.status}`)
    return { taskId: body.task?.id ?? '', status: body.task?.status ?? `${res.status}`, at }
  } catch (err) {
    return { taskId: '', status: failures.of(err), at: Number.NaN }
  }
}

interface Sizes {
  readonly WAITS: number
  readonly STREAMS: number
  readonly ACCOUNTS: number
  readonly taskStreams: number
  readonly clients: number
}

function report(
  sizes: Sizes,
  states: { idle: ApiState; held: ApiState; after: ApiState },
  consumers: { consumersOpen: number; left: number },
  arrivals: Arrivals,
  storedAt: ReadonlyMap<string, number>,
  projectedAt: ReadonlyMap<string, number>,
  failures: Failures,
): void {
  const { idle, held, after } = states
  const kib = (bytes: number) => `${(bytes / 1024 / sizes.clients).toFixed(1)} KiB`
  const ms = (v: number) => `${v.toFixed(1)} ms`
  const since = (from: ReadonlyMap<string, number>, arrived: [string, number][]) => arrived.map(([id, at]) => at - (from.get(id) ?? Number.NaN)).filter(Number.isFinite)
  const line = (label: string, arrived: [string, number][]) => {
    for (const [from, name] of [
      [projectedAt, 'projected'],
      [storedAt, 'stored'],
    ] as const) {
      const values = since(from, arrived)
      console.log(
        `  ${label.padEnd(28)} after ${name.padEnd(9)} n=${String(values.length).padStart(5)}  p50 ${ms(percentile(values, 50))}  p99 ${ms(percentile(values, 99))}  max ${ms(values.reduce((a, b) => Math.max(a, b), Number.NEGATIVE_INFINITY))}`,
      )
    }
  }
  const projectionLag = [...projectedAt].map(([id, at]) => at - (storedAt.get(id) ?? Number.NaN)).filter(Number.isFinite)
  const resources = (s: ApiState) =>
    Object.entries(s.resources)
      .map(([kind, n]) => `${n} ${kind}`)
      .join(', ')
  console.log(
    `waiting clients against one API process: ${sizes.WAITS} waitSeconds=120 POSTs, ${sizes.taskStreams} task streams, ${sizes.STREAMS - sizes.taskStreams} account feeds, ${sizes.ACCOUNTS} accounts`,
  )
  console.log(`  answers: ${arrivals.waits.size} of ${sizes.WAITS} completed; task streams: ${arrivals.streams.size} of ${sizes.taskStreams} saw TaskCompleted; failures: ${failures}`)
  console.log(
    `  API process after a forced GC, per open client: ${kib(held.heapUsedBytes + held.externalBytes - idle.heapUsedBytes - idle.externalBytes)} of JS heap and external memory, ${kib(held.rssBytes - idle.rssBytes)} of RSS (target ≤ 20 KiB); ${(idle.rssBytes / 2 ** 20).toFixed(1)} MiB RSS idle, ${(held.rssBytes / 2 ** 20).toFixed(1)} MiB with ${sizes.clients} open`,
  )
  console.log(`  live consumers on the server: ${consumers.consumersOpen} while ${sizes.clients} clients were open, ${consumers.left} after they went (target: 1, 0)`)
  console.log(`  left in the API process: ${after.liveReaders} live readers, ${after.httpConnections} HTTP connections, handles ${resources(after)} (idle before: ${resources(idle)})`)
  console.log(`  the tasks projection stored each end p50 ${ms(percentile(projectionLag, 50))} / p99 ${ms(percentile(projectionLag, 99))} after the log did`)
  console.log('  arrival after the end was projected (target p99 ≤ 100 ms) and after it was stored:')
  line('waitSeconds answer', [...arrivals.waits])
  line('task stream TaskCompleted', [...arrivals.streams])
  line(
    'account feed TaskCompleted',
    [...arrivals.feeds].flatMap(([id, ats]) => ats.map((at): [string, number] => [id, at])),
  )
}

if (import.meta.url === `file://${process.argv[1]}`) await main()

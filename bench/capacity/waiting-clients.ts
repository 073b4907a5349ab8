// Issue 22, target 5: what waiting clients cost one API process. WAITS concurrent POST /v1/tasks
// with waitSeconds=60 and STREAMS open Server-Sent Event streams (half per task, half account
// feeds) against one API process of its own (a child process, so that its memory is its own);
// the bench then ends every task in the log itself and measures how long after that each answer
// and each stream's TaskCompleted arrive. Prints the API process's memory per open client, the
// p50/p99 of those latencies, and the consumers left on the server once the clients went.
//   node --import tsx bench/capacity/waiting-clients.ts   WAITS=2000 STREAMS=2000 ACCOUNTS=20
import { fork, type ChildProcess } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
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
import { benchServers, benchService } from '../harness.js'
import { percentile } from '../stats.js'

const API_ENV = {
  SSE_MAX_STREAMS_PER_ACCOUNT: '100000',
  RATE_LIMIT_TASKS_CREATE_PER_MIN: '1000000',
  RATE_LIMIT_TASKS_READ_PER_MIN: '1000000',
  LIVE_EVENTS_IDLE_MS: '1000',
  TASK_EVENTS_HEARTBEAT_MS: '15000',
}

interface Caller {
  readonly accountId: string
  readonly headers: Record<string, string>
  readonly sessionId: string
}

/** The API process: a child of its own, answering its URL once it listens. */
function startApi(natsUrl: string, mongoUrl: string): Promise<{ child: ChildProcess; url: string }> {
  const child = fork(fileURLToPath(import.meta.url), ['--api', natsUrl, mongoUrl], { execArgv: ['--import', 'tsx'] })
  return new Promise((resolve, reject) => {
    child.once('message', (url) => resolve({ child, url: String(url) }))
    child.once('exit', (code) => reject(new Error(`the API process exited with ${code}`)))
  })
}

async function rssKiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN)
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
  return postRetried(`${url}/v1/tasks`, headers, JSON.stringify({ sessionId: caller.sessionId, instruction: `Wait ${crypto.randomUUID()}`, ...body }))
}

/** A POST sent again after Retry-After (1 s without one) on a 503 (a starved machine, ADR 0035), as the spec asks clients. */
async function postRetried(url: string, headers: Record<string, string>, payload: string): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    const res = await fetch(url, { method: 'POST', headers, body: payload })
    // A 503's try may still hold its Idempotency-Key: the next try is told to wait for it (409 idempotency_key_in_flight).
    const inFlight = res.status === 409 && (await res.clone().text()).includes('idempotency_key_in_flight')
    if ((res.status !== 503 && !inFlight) || attempt === 10) return res
    await res.text()
    await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? 1) * 1000))
  }
}

async function aTaskId(url: string, caller: Caller): Promise<string> {
  const res = await post(url, caller, {})
  const body = (await res.json()) as { task?: { id: string } }
  if (!body.task) throw new Error(`POST /v1/tasks answered ${res.status} ${JSON.stringify(body)}`)
  return body.task.id
}

/** Reads an SSE response until `done(frame)` says so; answers when that frame arrived (ms, performance.now), NaN if the stream ended first. */
async function readSse(res: Response, done: (frame: string) => boolean, signal: AbortSignal): Promise<number> {
  const reader = res.body?.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  try {
    for (;;) {
      const chunk = await reader?.read()
      if (!chunk || chunk.done) return Number.NaN
      buffer += decoder.decode(chunk.value, { stream: true })
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const frame = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        if (done(frame)) return performance.now()
      }
    }
  } catch (err) {
    if (signal.aborted) return Number.NaN
    throw err
  }
}

/** Every TaskCreated of the account in the log: the bench's tasks to end. */
async function createdTasks(ctx: AppContext, accountId: string): Promise<{ taskId: string; seq: number }[]> {
  const { events } = await new LogReader(ctx.jsm).read('MATS_TASKS', accountSubjects('task', accountId), 1)
  return events.filter((e) => e.type === 'TaskCreated').map((e) => ({ taskId: e.aggregateId, seq: e.seq }))
}

async function liveConsumers(ctx: AppContext): Promise<number> {
  return (await liveEventConsumers(ctx.jsm)).length
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 300_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await check()); await new Promise((r) => setTimeout(r, 100))) if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
}

/** Ends the task in the log (started, completed) as a worker would; answers when the end was stored (performance.now). */
async function endTask(ctx: AppContext, accountId: string, taskId: string, createdSeq: number): Promise<number> {
  const metadata = { correlationId: crypto.randomUUID(), causationId: null, keyId: null }
  const billing = { billingMonth: new Date().toISOString().slice(0, 7), reservedMicros: 10_000 }
  const completed = { result: 'done', usage: { provider: 'offline', model: 'offline', inputTokens: 1, outputTokens: 1 }, costMicros: 1, learnedFacts: [], ...billing }
  const drafts: TaskEvent[] = [
    { type: 'TaskStarted', data: { workerId: 'bench' } },
    { type: 'TaskCompleted', data: { ...completed, agentType: 'growth-marketer' } },
  ]
  await ctx.events.append(Task, { accountId, aggregateId: taskId }, drafts, { expectedVersion: createdSeq, metadata, now: new Date() })
  return performance.now()
}

export async function main(): Promise<void> {
  const WAITS = Number(process.env.WAITS ?? 2000)
  const STREAMS = Number(process.env.STREAMS ?? 2000)
  const ACCOUNTS = Number(process.env.ACCOUNTS ?? 20)
  const servers = await benchServers()
  const api = await startApi(servers.natsUrl, servers.mongoUrl)
  const ctx = await connectApp(loadConfig({ NATS_URL: servers.natsUrl, MONGODB_URL: servers.mongoUrl, LOG_LEVEL: 'silent' }), pino({ level: 'silent' }))
  try {
    const callers: Caller[] = []
    for (let i = 0; i < ACCOUNTS; i++) callers.push(await aCaller(ctx, api.url))
    const of = (i: number) => callers[i % ACCOUNTS] as Caller
    // Warm up: one task, one wait and one stream, so that what a process opens once is open before measuring.
    await (await post(api.url, of(0), { waitSeconds: 1 })).text()
    const idleKiB = await rssKiB(api.child.pid ?? 0)

    const taskStreams = Math.floor(STREAMS / 2)
    const followed = await Promise.all(Array.from({ length: taskStreams }, (_, i) => aTaskId(api.url, of(i))))
    const closing = new AbortController()
    const open = (path: string, caller: Caller) => fetch(`${api.url}${path}`, { headers: { ...caller.headers, accept: 'text/event-stream' }, signal: closing.signal })
    const perTask = await Promise.all(followed.map((id, i) => open(`/v1/tasks/${id}/events`, of(i))))
    const feeds = await Promise.all(Array.from({ length: STREAMS - taskStreams }, (_, i) => open('/v1/events', of(i))))
    const waitStart = performance.now()
    const waits = Array.from({ length: WAITS }, async (_, i) => {
      const res = await post(api.url, of(i), { waitSeconds: 60 })
      const body = (await res.json()) as { task?: { id: string; status: string } }
      return { at: performance.now(), taskId: body.task?.id ?? '', status: body.task?.status ?? `${res.status}` }
    })
    // The warm-up's task, the followed ones and the waited ones.
    const expected = 1 + followed.length + WAITS
    let stored = 0
    await until(`every task to be stored (${expected})`, async () => {
      stored = (await Promise.all(callers.map((c) => createdTasks(ctx, c.accountId)))).flat().length
      return stored >= expected
    }).catch((err: unknown) => {
      throw new Error(`${stored} stored: ${err}`)
    })
    await new Promise((r) => setTimeout(r, 2000))
    const openKiB = await rssKiB(api.child.pid ?? 0)
    const consumersOpen = await liveConsumers(ctx)

    const streamEnds = perTask.map((res) => readSse(res, (f) => f.includes('event: TaskCompleted'), closing.signal))
    const endedAt = new Map<string, number>()
    const feedSeen = new Map<string, number[]>()
    const feedReads = feeds.map((res) =>
      readSse(
        res,
        (f) => {
          const id = /"aggregateId":"([^"]+)"/.exec(f)?.[1]
          if (id && f.includes('event: TaskCompleted')) feedSeen.set(id, [...(feedSeen.get(id) ?? []), performance.now()])
          return false
        },
        closing.signal,
      ),
    )
    for (const caller of callers) {
      const tasks = await createdTasks(ctx, caller.accountId)
      for (let i = 0; i < tasks.length; i += 16) {
        await Promise.all(tasks.slice(i, i + 16).map(async ({ taskId, seq }) => endedAt.set(taskId, await endTask(ctx, caller.accountId, taskId, seq).catch(() => Number.NaN))))
      }
    }
    const answers = await Promise.all(waits)
    const streamAt = await Promise.all(streamEnds)
    closing.abort()
    await Promise.allSettled(feedReads)

    const waitLatency = answers.filter((a) => a.status === 'completed').map((a) => a.at - (endedAt.get(a.taskId) ?? Number.NaN))
    const streamLatency = streamAt.map((at, i) => at - (endedAt.get(followed[i] ?? '') ?? Number.NaN)).filter(Number.isFinite)
    const feedLatency = [...feedSeen].flatMap(([id, ats]) => ats.map((at) => at - (endedAt.get(id) ?? Number.NaN))).filter(Number.isFinite)
    await until('the shared consumer to go once the clients went', async () => (await liveConsumers(ctx)) === 0, 30_000).catch(() => undefined)
    const left = await liveConsumers(ctx)

    const clients = WAITS + STREAMS
    const ms = (v: number) => `${v.toFixed(1)} ms`
    const line = (label: string, values: number[]) =>
      console.log(`  ${label.padEnd(28)} n=${String(values.length).padStart(5)}  p50 ${ms(percentile(values, 50))}  p99 ${ms(percentile(values, 99))}  max ${ms(Math.max(...values))}`)
    console.log(`waiting clients against one API process: ${WAITS} waitSeconds=60 POSTs, ${taskStreams} task streams, ${STREAMS - taskStreams} account feeds, ${ACCOUNTS} accounts`)
    console.log(
      `  answers: ${answers.filter((a) => a.status === 'completed').length} of ${WAITS} completed (the rest: ${[...new Set(answers.filter((a) => a.status !== 'completed').map((a) => a.status))].join(', ') || 'none'}); all held after ${ms(performance.now() - waitStart)}`,
    )
    console.log(
      `  API process RSS: ${(idleKiB / 1024).toFixed(1)} MiB idle, ${(openKiB / 1024).toFixed(1)} MiB with ${clients} open: ${((openKiB - idleKiB) / clients).toFixed(1)} KiB per open client (target ≤ 20)`,
    )
    console.log(`  live consumers on the server: ${consumersOpen} while ${clients} clients were open, ${left} after they went (target: 1, 0)`)
    console.log('  after the end was stored (target p99 ≤ 100 ms after its projection; measured from the append, before it):')
    line('waitSeconds answer', waitLatency)
    line('task stream TaskCompleted', streamLatency)
    line('account feed TaskCompleted', feedLatency)
  } finally {
    api.child.kill('SIGTERM')
    await ctx.close()
    await servers.stop()
  }
}

if (process.argv.includes('--api')) {
  const [natsUrl = '', mongoUrl = ''] = process.argv.slice(process.argv.indexOf('--api') + 1)
  const service = await benchService(natsUrl, mongoUrl, API_ENV, ['api', 'projector'])
  process.send?.(service.url)
  process.once('SIGTERM', () => void service.stop().then(() => process.exit(0)))
} else if (import.meta.url === `file://${process.argv[1]}`) {
  await main()
}

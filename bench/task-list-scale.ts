/**
 * The console's Tasks screen against an account of 100,000 tasks (issue 20: its first page ≤ 500 ms
 * after navigation) and a small account beside it (invariant 12: one tenant never slows another).
 *
 * Each task's history (TaskCreated, then TaskStarted, TaskCompleted or TaskFailed; statuses,
 * agents, 20 sessions and priorities spread independently, test/helpers/task-mix.ts) is, for the big
 * account, folded by the projections' own evolve into the tasks and task_counts read models
 * (test/helpers/task-documents.ts: appending and projecting 100,000 tasks takes many minutes on a
 * loaded 2-core machine and is measured by bench:projectors); for the small account appended to
 * the log, one atomic batch per task, and projected by the service's projector. Then, against the real API
 * (api + projector in this process, FerretDB and nats-server on loopback), ROUNDS interleaved
 * rounds of one request per case, both accounts: GET /v1/tasks first page unfiltered and by each
 * filter, the next page, a deep page by offset, GET /v1/tasks/counts. Per case: median (min–max)
 * ms, the MongoDB commands one request sends (driver command monitoring) and the total it answers.
 * Then the small account's first page while 4 clients list the big one's, and how each list query
 * is planned (explain).
 *
 *   npm run bench:task-list     [STORED=100000] [SMALL=200] [ROUNDS=15] [TIMEOUT_MS=60000]
 */
import type { CommandStartedEvent } from 'mongodb'
import { tasksProjection } from '../projections/index.js'
import { benchServers, benchService } from './harness.js'
import { show, spread } from './stats.js'
import { appendToLog, caughtUp, seedReadModels, tenant as account, type Tenant } from './task-list-accounts.js'
import { explainLists, type ListCase } from './task-list-plans.js'

const STORED = Number(process.env.STORED ?? 100_000)
const SMALL = Number(process.env.SMALL ?? 200)
const ROUNDS = Number(process.env.ROUNDS ?? 15)
const SESSIONS = 20
const say = (line: string) => process.stdout.write(`${line}\n`)

const servers = await benchServers()
const service = await benchService(servers.natsUrl, `${servers.mongoUrl}?monitorCommands=true`, { RATE_LIMITS_ENABLED: 'false' })
const { infra } = service
const commands: string[] = []
infra.mongo.on('commandStarted', (event: CommandStartedEvent) => {
  const target = event.command[event.commandName]
  commands.push(typeof target === 'string' ? `${event.commandName} ${target.replace(/_g\d+$/, '')}` : event.commandName)
})

const tenant = (name: string, tasks: number, sessions: number) => account(infra, name, tasks, sessions)

/** A request that has not answered by then counts as this long, and is reported as timed out. */
const TIMEOUT_MS = Number(process.env.TIMEOUT_MS ?? 60_000)
const timedOut = new Map<string, number>()

async function timed(tenant: Tenant, path: string): Promise<{ ms: number; body: unknown }> {
  try {
    return await get(tenant, path)
  } catch (err) {
    if (!(err instanceof Error) || err.name !== 'TimeoutError') throw err
    timedOut.set(path, (timedOut.get(path) ?? 0) + 1)
    return { ms: TIMEOUT_MS, body: null }
  }
}

async function get(tenant: Tenant, path: string): Promise<{ ms: number; body: unknown }> {
  const start = performance.now()
  const response = await fetch(`${service.url}${path}`, { headers: tenant.headers, signal: AbortSignal.timeout(TIMEOUT_MS) })
  const body: unknown = await response.json()
  const ms = performance.now() - start
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${JSON.stringify(body)}`)
  return { ms, body }
}

const big = await tenant('big', STORED, SESSIONS)
const small = await tenant('small', SMALL, 1)
let started = performance.now()
// The big account's tasks were created one a second up to an hour ago; the created window is the middle half of that.
const { from, to } = await seedReadModels(infra, big)
say(`seeded ${STORED.toLocaleString('en-US')} tasks into the read models in ${((performance.now() - started) / 1000).toFixed(1)} s`)
started = performance.now()
await appendToLog(infra, small)
await Promise.all([caughtUp(service.url, big), caughtUp(service.url, small)])
say(`appended ${SMALL} tasks to the log and projected them in ${((performance.now() - started) / 1000).toFixed(1)} s`)

const quarter = (to.getTime() - from.getTime()) / 4
const window = { createdFrom: new Date(from.getTime() + quarter).toISOString(), createdTo: new Date(to.getTime() - quarter).toISOString() }
const casesOf = (t: Tenant): ListCase[] => [
  { name: 'first page', filter: {} },
  { name: 'status=running', filter: { status: 'running' } },
  { name: 'agentType=seo', filter: { agentType: 'seo' } },
  { name: 'sessionId', filter: { sessionId: t.sessions[0]! } },
  { name: 'priority=high', filter: { priority: 'high' } },
  { name: 'created window', filter: t === big ? window : { createdFrom: new Date(Date.now() - 3_600_000).toISOString() } },
  { name: 'status+agent', filter: { status: 'completed', agentType: 'seo' } },
]
const query = (filter: Record<string, string>, extra: Record<string, string> = {}) => `/v1/tasks?${new URLSearchParams({ limit: '25', ...filter, ...extra })}`

/** The request of the second page: by the cursor the first page gave, else by page number. */
async function secondPage(t: Tenant): Promise<string> {
  const { body } = await get(t, query({}))
  const cursor = (body as { pagination: { nextCursor?: string | null } }).pagination.nextCursor
  return cursor ? query({}, { cursor }) : query({}, { page: '2' })
}

type Probe = { readonly label: string; readonly tenant: Tenant; readonly path: string }
const probes: Probe[] = []
for (const t of [big, small]) {
  for (const c of casesOf(t)) probes.push({ label: `${t.name}: ${c.name}`, tenant: t, path: query(c.filter) })
  probes.push({ label: `${t.name}: next page`, tenant: t, path: await secondPage(t) })
  probes.push({ label: `${t.name}: page 41 (offset 1,000)`, tenant: t, path: query({}, { page: '41' }) })
  probes.push({ label: `${t.name}: GET /v1/tasks/counts`, tenant: t, path: '/v1/tasks/counts' })
}

const times = new Map<Probe, number[]>(probes.map((p) => [p, []]))
const sent = new Map<Probe, string[]>()
const totals = new Map<Probe, string>()
for (let round = 0; round <= ROUNDS; round++) {
  // Round 0 warms up; each round takes the probes in a rotated order so that none always goes first.
  for (let k = 0; k < probes.length; k++) {
    const probe = probes[(k + round) % probes.length]!
    commands.length = 0
    const { ms, body } = await timed(probe.tenant, probe.path)
    if (round === 0) continue
    times.get(probe)!.push(ms)
    if (!sent.has(probe)) sent.set(probe, [...commands])
    const pagination = body === null ? undefined : (body as { pagination?: { total: number; totalExact?: boolean } }).pagination
    if (pagination) totals.set(probe, `${pagination.totalExact === false ? '≥ ' : ''}${pagination.total.toLocaleString('en-US')}`)
  }
}

say(`\n${ROUNDS} interleaved rounds, ms per request, median (min–max); MongoDB commands of one request; the total it answered`)
say('| request | ms | commands | total |\n|---|---|---|---|')
for (const probe of probes)
  say(
    `| ${probe.label} | ${show(spread(times.get(probe)!), 1)}${timedOut.has(probe.path) ? ` (${timedOut.get(probe.path)} timed out at ${TIMEOUT_MS / 1000} s)` : ''} | ${summary(sent.get(probe) ?? [])} | ${totals.get(probe) ?? ''} |`,
  )

function summary(names: readonly string[]): string {
  const counted = new Map<string, number>()
  for (const name of names) counted.set(name, (counted.get(name) ?? 0) + 1)
  return [...counted].map(([name, n]) => (n > 1 ? `${n}× ${name}` : name)).join(', ') || 'none'
}

// Invariant 12: the small account's first page, alone and while 4 clients keep listing the big one's.
const alone: number[] = []
for (let i = 0; i < ROUNDS * 2; i++) alone.push((await timed(small, query({}))).ms)
let loading = true
const heavy = casesOf(big).map((c) => query(c.filter))
const load = Array.from({ length: 4 }, async (_, k) => {
  for (let i = k; loading; i++) await timed(big, heavy[i % heavy.length]!)
})
const underLoad: number[] = []
for (let i = 0; i < ROUNDS * 2; i++) underLoad.push((await timed(small, query({}))).ms)
loading = false
await Promise.all(load)
say(`\nsmall account's first page: alone ${show(spread(alone), 1)} ms; while 4 clients list the big account ${show(spread(underLoad), 1)} ms`)

say('\nHow the list queries are planned (explain of the big account):')
for (const line of await explainLists(infra.readModels.collection(tasksProjection), big.id, casesOf(big))) say(line)

await service.stop()
await servers.stop()

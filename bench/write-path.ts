/**
 * The write path at scale: every figure next to a baseline measured in the same run, on the
 * same machine and servers, in interleaved rounds (median, with the range of the rounds).
 *
 *   npm run bench        ROUNDS=3 SECONDS=5 CONNECTIONS=10 BURST=1000 STORED=100000 DURABLE=1
 *
 * Two rigs, each its own nats-server and embedded MongoDB-wire server (patched FerretDB):
 * - the write path alone: an API process with nothing else consuming, for POST /v1/tasks
 *   against JetStream publish-with-ack to the same server (item 1);
 * - the whole service as `npm start` runs it (every role in one process, offline agents at
 *   0 ms), for tasks end to end against BullMQ on Redis, reads, lag and the rebuild.
 * Rate limits off. The clients run in a process of their own.
 */
import { randomUUID } from 'node:crypto'
import { cpus } from 'node:os'
import { ALL_PROJECTIONS, rebuildProjections, tasksProjection } from '../projections/index.js'
import { collectionName } from '../projections/engine/read-models.js'
import type { RecordedEvent } from '../src/domain/message.js'
import { bareFindOne, bullmqBurst, insertManySeconds, rawPublishRate, startRedis, type Burst } from './baselines.js'
import { jetStreamFloorBurst } from './jetstream-floor.js'
import { benchServers, benchService, type BenchServers } from './harness.js'
import type { Role, ServiceHooks } from '../src/service.js'
import { quiesce } from './mats.js'
import { burstApart, getRateApart, postRateApart } from './client-process.js'
import { seedTasks } from './seed.js'
import { histogram, percentile, show, spread, type Spread } from './stats.js'
import { aBenchCaller, type BenchCaller } from './callers.js'

const ROUNDS = Number(process.env.ROUNDS ?? 3)
const SECONDS = Number(process.env.SECONDS ?? 5)
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 10)
const BURST = Number(process.env.BURST ?? 1000)
const STORED = Number(process.env.STORED ?? 100_000)
const LISTED = 1000
const WORKER_CONCURRENCY = 4
const say = (line: string) => process.stdout.write(`${line}\n`)

interface Figures {
  post: number[]
  publish: number[]
  postAll: number[]
  burst: number[]
  bull: number[]
  p50: number[]
  bullP50: number[]
  floor: number[]
  floorP50: number[]
  list: number[]
  listStatus: number[]
  get: number[]
  bare: number[]
}
const empty = (): Figures => ({ post: [], publish: [], postAll: [], burst: [], bull: [], p50: [], bullP50: [], floor: [], floorP50: [], list: [], listStatus: [], get: [], bare: [] })

/** Servers with a service on them, and a caller of it. */
interface Rig {
  readonly servers: BenchServers
  readonly caller: BenchCaller
}

/** Lag from an event's append to its tasks read-model write, recorded while bursts run. */
const lag = { recording: false, ms: [] as number[] }
function onProjected(projection: string, events: readonly RecordedEvent[]): void {
  if (!lag.recording || projection !== tasksProjection.name) return
  const now = Date.now()
  for (const event of events) lag.ms.push(now - Date.parse(event.occurredAt))
}

async function measure(writes: Rig, full: Rig, lister: BenchCaller | null, redisUrl: string, label: string): Promise<Figures> {
  const f = empty()
  const writer = full.caller
  const bare = lister ? await bareFindOne(full.servers.mongoUrl, collectionName(tasksProjection, lister.service.infra.readModels.generationOf(tasksProjection))) : null
  for (let round = 1; round <= ROUNDS; round++) {
    f.post.push(await postRateApart(writes.caller.url, writes.caller.headers, writes.caller.sessionId, SECONDS, CONNECTIONS))
    f.publish.push(await rawPublishRate(writes.servers.natsUrl, SECONDS, CONNECTIONS))
    f.postAll.push(await postRateApart(writer.url, writer.headers, writer.sessionId, SECONDS, CONNECTIONS))
    await quiesce(writer.service.infra)
    lag.recording = true
    const burst: Burst = await burstApart(writer.url, writer.headers, writer.sessionId, BURST, CONNECTIONS)
    lag.recording = false
    await quiesce(writer.service.infra)
    const bull = await bullmqBurst(redisUrl, BURST, CONNECTIONS, WORKER_CONCURRENCY)
    const floor = await jetStreamFloorBurst(full.servers.natsUrl, BURST, CONNECTIONS, WORKER_CONCURRENCY)
    f.burst.push(burst.rate)
    f.p50.push(percentile(burst.latencies, 50))
    f.bull.push(bull.rate)
    f.bullP50.push(percentile(bull.latencies, 50))
    f.floor.push(floor.rate)
    f.floorP50.push(percentile(floor.latencies, 50))
    if (lister && bare) {
      f.list.push(await getRateApart(`${lister.url}/v1/tasks`, lister.headers, SECONDS, CONNECTIONS))
      f.listStatus.push(await getRateApart(`${lister.url}/v1/tasks?status=completed`, lister.headers, SECONDS, CONNECTIONS))
      f.get.push(await getRateApart(`${lister.url}/v1/tasks/${lister.taskId}`, lister.headers, SECONDS, CONNECTIONS))
      f.bare.push(await getRateApart(`${bare.url}/tasks/${lister.taskId}`, {}, SECONDS, CONNECTIONS))
    }
    say(
      `  [${label}] round ${round}: POST ${f.post.at(-1)!.toFixed(0)}/s (publish ${f.publish.at(-1)!.toFixed(0)}/s; every role in one process ${f.postAll.at(-1)!.toFixed(0)}/s), burst ${burst.rate.toFixed(0)} tasks/s p50 ${f.p50.at(-1)} ms (BullMQ ${bull.rate.toFixed(0)}/s p50 ${f.bullP50.at(-1)} ms; JetStream floor ${floor.rate.toFixed(0)}/s p50 ${f.floorP50.at(-1)} ms)${lister ? `, list ${f.list.at(-1)!.toFixed(0)}/s, status ${f.listStatus.at(-1)!.toFixed(0)}/s, get ${f.get.at(-1)!.toFixed(0)}/s (bare ${f.bare.at(-1)!.toFixed(0)}/s)` : ''}`,
    )
  }
  await bare?.stop()
  return f
}

function ratio(a: number[], b: number[]): string {
  const r = spread(a).median / spread(b).median
  return r.toFixed(r < 0.1 ? 4 : 2)
}

function verdict(value: number, goal: number, atMost = false): string {
  return (atMost ? value <= goal : value >= goal) ? 'met' : 'NOT met'
}

function row(what: string, ours: Spread, base: string, r: string, goal: string, met: string, digits = 0): void {
  say(`  ${what.padEnd(44)} ${show(ours, digits).padEnd(26)} ${base.padEnd(34)} ${r.padStart(7)}   ${goal.padEnd(7)} ${met}`)
}

function printFigures(f: Figures, label: string, withReads: boolean): void {
  say(`\n${label}`)
  say(`  ${'figure'.padEnd(44)} ${'mats: median (range)'.padEnd(26)} ${'baseline: median (range)'.padEnd(34)} ${'ratio'.padStart(7)}   goal`)
  row(
    `1. POST /v1/tasks, ${CONNECTIONS} connections (/s)`,
    spread(f.post),
    `publish+ack ${show(spread(f.publish))}`,
    ratio(f.post, f.publish),
    '≥ 0.10',
    verdict(spread(f.post).median / spread(f.publish).median, 0.1),
  )
  row('   same, every role in one process (npm start)', spread(f.postAll), '', ratio(f.postAll, f.publish), '', '')
  row(`2. no-op tasks, bursts of ${BURST} (tasks/s)`, spread(f.burst), `BullMQ ${show(spread(f.bull))}`, ratio(f.burst, f.bull), '≥ 0.50', verdict(spread(f.burst).median / spread(f.bull).median, 0.5))
  row(
    '2. p50 POST → completed in GET (ms)',
    spread(f.p50),
    `BullMQ add → completed ${show(spread(f.bullP50))}`,
    ratio(f.p50, f.bullP50),
    '≤ 5',
    verdict(spread(f.p50).median / spread(f.bullP50).median, 5, true),
  )
  row('   no-op tasks against the JetStream floor', spread(f.burst), `three appends, no HTTP ${show(spread(f.floor))}`, ratio(f.burst, f.floor), '', '')
  row('   the JetStream floor against BullMQ', spread(f.floor), `BullMQ ${show(spread(f.bull))}`, ratio(f.floor, f.bull), '', '')
  if (!withReads) return
  row(`6. GET /v1/tasks/{id} (/s)`, spread(f.get), `bare fastify findOne ${show(spread(f.bare))}`, ratio(f.get, f.bare), '≥ 0.80', verdict(spread(f.get).median / spread(f.bare).median, 0.8))
  row(`   GET /v1/tasks, ${LISTED} tasks in the account (/s)`, spread(f.list), '', '', '', '')
  row('   GET /v1/tasks?status=completed (/s)', spread(f.listStatus), '', '', '', '')
}

function printGrowth(small: Figures, large: Figures): void {
  say(`\n3. Flat as data grows: ${STORED.toLocaleString('en-US')} tasks stored against ${LISTED.toLocaleString('en-US')} (same account of ${LISTED} listed)`)
  const line = (what: string, a: number[], b: number[], goal: number) =>
    row(what, spread(b), `at ${LISTED}: ${show(spread(a))}`, ratio(b, a), `≥ ${goal.toFixed(2)}`, verdict(spread(b).median / spread(a).median, goal))
  line('POST /v1/tasks (/s)', small.post, large.post, 0.7)
  line('no-op tasks end to end (tasks/s)', small.burst, large.burst, 0.7)
  line('GET /v1/tasks, 25 newest (/s)', small.list, large.list, 0.5)
  line('GET /v1/tasks?status=completed (/s)', small.listStatus, large.listStatus, 0.5)
}

async function rebuild(servers: BenchServers, caller: BenchCaller): Promise<void> {
  const { infra } = caller.service
  const deps = { js: infra.js, jsm: infra.jsm, link: infra.link, readModels: infra.readModels, log: infra.log }
  const started = performance.now()
  let replayed = 0
  let lastLine = 0
  await rebuildProjections(deps, ALL_PROJECTIONS, (p) => {
    // Projections replay side by side: the rebuild is done at the last of them to flip, whichever it is.
    if (p.phase === 'activated') replayed = performance.now()
    if (p.phase !== 'replaying' || Date.now() - lastLine > 2000) {
      lastLine = Date.now()
      say(`  rebuild: ${p.projection} ${p.phase} ${p.applied}/${p.last}`)
    }
  })
  const rebuildSeconds = (replayed - started) / 1000
  const groups = await Promise.all(ALL_PROJECTIONS.map(async (projection) => ({ indexes: projection.indexes, docs: await infra.readModels.collection(projection).find({}).toArray() })))
  // One collection for all: ids are unique per projection only (account_spend and account_usage share theirs).
  const docs = groups.flatMap((group, g) => group.docs.map((doc) => ({ ...doc, _id: `${g}:${String(doc._id)}` })))
  const insertSeconds = await insertManySeconds(servers.mongoUrl, groups)
  const bareSeconds = await insertManySeconds(servers.mongoUrl, [{ indexes: [], docs }])
  say(`\n4. mats projections rebuild of ${STORED.toLocaleString('en-US')} tasks (${docs.length.toLocaleString('en-US')} documents)`)
  row(
    'replay into a new generation, to the last flip (s)',
    spread([rebuildSeconds]),
    `insertMany, read models' indexes ${insertSeconds.toFixed(1)} s`,
    (rebuildSeconds / insertSeconds).toFixed(2),
    '≤ 2',
    verdict(rebuildSeconds / insertSeconds, 2, true),
    1,
  )
  row('   against one collection without indexes', spread([rebuildSeconds]), `insertMany, no index ${bareSeconds.toFixed(1)} s`, (rebuildSeconds / bareSeconds).toFixed(2), '', '', 1)
}

/** Everything started, stopped in reverse order however the run ends (servers are child processes). */
const started: (() => Promise<void>)[] = []
async function stopAll(): Promise<void> {
  for (const stop of started.splice(0).reverse()) await stop().catch(() => undefined)
}

const FULL_ENV = { OFFLINE_AGENT_LATENCY_MS: '0', RATE_LIMITS_ENABLED: 'false', WORKER_CONCURRENCY: String(WORKER_CONCURRENCY) }

async function aRig(roles: Role[], options: { syncAlways?: boolean; hooks?: ServiceHooks } = {}): Promise<Rig> {
  const servers = await benchServers(options.syncAlways ? { syncAlways: true } : {})
  started.push(servers.stop)
  const service = await benchService(servers.natsUrl, servers.mongoUrl, FULL_ENV, roles, options.hooks ?? {})
  started.push(service.stop)
  return { servers, caller: await aBenchCaller(service) }
}

/** Stores tasks of other accounts, `LISTED` per account, until `total` are stored. */
async function storeUpTo(rig: Rig, from: number, total: number): Promise<void> {
  for (let stored = from; stored < total; stored += LISTED) await seedTasks(rig.caller.service.infra, randomUUID(), LISTED)
}

async function main(): Promise<void> {
  say(`mats write-path benchmark, ${new Date().toISOString()}, ${cpus()[0]?.model ?? 'cpu'} × ${cpus().length}, Node ${process.version}`)
  say(`rounds ${ROUNDS} × ${SECONDS} s, ${CONNECTIONS} connections, bursts of ${BURST}, worker concurrency ${WORKER_CONCURRENCY}, ${STORED.toLocaleString('en-US')} tasks stored for item 3`)
  const redis = await startRedis()
  started.push(redis.stop)
  const writes = await aRig(['api'])
  const full = await aRig(['api', 'worker', 'projector'], { hooks: { onProjected } })
  const lister = await aBenchCaller(full.caller.service)
  await seedTasks(full.caller.service.infra, lister.accountId, LISTED)
  await quiesce(full.caller.service.infra)
  await lister.pickTask()

  say(`\nmeasuring with ${LISTED.toLocaleString('en-US')} tasks stored`)
  const small = await measure(writes, full, lister, redis.url, 'small')
  say(`\nstoring ${STORED.toLocaleString('en-US')} tasks`)
  const seeding = performance.now()
  await Promise.all([storeUpTo(full, LISTED, STORED), storeUpTo(writes, 0, STORED)])
  await quiesce(full.caller.service.infra)
  say(`  stored and projected in ${((performance.now() - seeding) / 1000).toFixed(0)} s`)
  const lagAtSmall = [...lag.ms]
  lag.ms.length = 0
  const large = await measure(writes, full, lister, redis.url, 'large')

  printFigures(small, `With ${LISTED.toLocaleString('en-US')} tasks stored (nats-server's default sync interval)`, true)
  printFigures(large, `With ${STORED.toLocaleString('en-US')} tasks stored`, true)
  printGrowth(small, large)
  const lagAll = [...lagAtSmall, ...lag.ms]
  say(`\n5. Projection lag during the bursts: append → tasks read-model write, ${lagAll.length} events`)
  say(`  p50 ${percentile(lagAll, 50)} ms, p99 ${percentile(lagAll, 99)} ms (goal p99 ≤ 1000 ms: ${verdict(percentile(lagAll, 99), 1000, true)}), max ${Math.max(...lagAll)} ms`)
  for (const line of histogram(lagAll, [5, 10, 25, 50, 100, 250, 500, 1000])) say(line)
  await rebuild(full.servers, lister)
  await stopAll()

  if (process.env.DURABLE !== '0') {
    say('\nmeasuring with sync_interval: always')
    const redisAgain = await startRedis()
    started.push(redisAgain.stop)
    const durableWrites = await aRig(['api'], { syncAlways: true })
    const durableFull = await aRig(['api', 'worker', 'projector'], { syncAlways: true })
    const figures = await measure(durableWrites, durableFull, null, redisAgain.url, 'durable')
    printFigures(figures, 'With nats-server sync_interval: always (fsync before every acknowledgement)', false)
    await stopAll()
  }
}

process.once('SIGINT', () => void stopAll().then(() => process.exit(130)))
try {
  await main()
} finally {
  await stopAll()
}

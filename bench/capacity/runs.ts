/**
 * Target 1, concurrent agent runs.
 *
 *   TARGETS=runs npm run bench:capacity      RUNS=1000 SHARED_RUNS=3000 RUNS_ROUNDS=1 CALL_MIN_MS=1000 CALL_MAX_MS=10000
 *
 * In each round, in turn, against the fake model server in this process (agent-runs.ts):
 * - mats: one `worker` process at WORKER_CONCURRENCY=RUNS (an `api` + `projector` process
 *   beside it takes the POSTs) holds RUNS runs: none failed `worker_lost`, none run twice
 *   (TaskStarted once, first model call once), no TaskCreated redelivered (heartbeats and
 *   in-progress acks in time), and its resident memory and CPU per run held;
 * - BullMQ: one worker process at concurrency RUNS whose processor makes the same calls
 *   (bullmq-worker.ts), the same figures;
 * - three mats worker processes at RUNS each share SHARED_RUNS runs: each one's share.
 */
import { randomUUID } from 'node:crypto'
import { Queue, QueueEvents } from 'bullmq'
import { Redis } from 'ioredis'
import { startRedis } from '../baselines.js'
import { show, spread } from '../stats.js'
import { oneClient, postTask } from './accounts.js'
import { agentRuns, CALL_MAX_MS, CALL_MIN_MS } from './agent-runs.js'
import { startBullmqWorker } from './bullmq-worker.js'
import { watchHeld, type Held } from './held-runs.js'
import { fakeModel } from './model-rig.js'
import { capacityServers, Stoppers } from './servers.js'
import { startMatsProcess } from './service-process.js'
import { TaskWatch } from './task-watch.js'

const RUNS = Number(process.env.RUNS ?? 1000)
const SHARED_RUNS = Number(process.env.SHARED_RUNS ?? 3 * RUNS)
const ROUNDS = Number(process.env.RUNS_ROUNDS ?? 1)
const POSTING = 20
const say = (line: string) => process.stdout.write(`${line}\n`)

interface MatsSide {
  readonly held: Held[]
  readonly failed: Map<string, number>
  readonly errors: string[]
  readonly twice: number
  readonly redelivered: number
  readonly shares: number[]
}

async function within<T>(what: string, ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took over ${ms / 1000} s`)), ms)
  })
  return Promise.race([promise, late]).finally(() => clearTimeout(timer))
}

const allowedMs = (runs: number) => 120_000 + runs * 200 + 8 * CALL_MAX_MS

async function matsSide(workers: number, runs: number, concurrency: number, label: string): Promise<MatsSide> {
  const stoppers = new Stoppers()
  try {
    const servers = stoppers.add(await capacityServers())
    const agent = agentRuns()
    const { env } = await fakeModel(stoppers, agent.script)
    const common = { ...env, NATS_URL: servers.natsUrl, MONGODB_URL: servers.mongoUrl, RATE_LIMITS_ENABLED: 'false' }
    const api = stoppers.add(await startMatsProcess({ roles: ['api', 'projector'], env: common }))
    const procs = await Promise.all(
      Array.from({ length: workers }, async () => stoppers.add(await startMatsProcess({ roles: ['worker'], env: { ...common, WORKER_CONCURRENCY: String(concurrency) } }))),
    )
    const client = await oneClient(servers, api.url ?? '')
    const watch = await TaskWatch.open(servers.natsUrl)
    stoppers.add({ stop: () => watch.close() })
    const done = (async () => {
      let next = 0
      await Promise.all(
        Array.from({ length: POSTING }, async () => {
          for (let i = next++; i < runs; i = next++) await postTask(api.url ?? '', client, `Run brief ${label}-${i}: plan the launch posts`, { agentType: 'seo' })
        }),
      )
      while (watch.endedCount < runs) await new Promise((r) => setTimeout(r, 250))
    })()
    const finished = within(`${runs} runs`, allowedMs(runs), done)
    const held = await Promise.all(
      procs.map((p) =>
        watchHeld(
          () => p.stats(),
          () => agent.active / workers,
          runs / workers,
          finished,
        ),
      ),
    )
    const failed = new Map<string, number>()
    for (const reason of watch.failures.values()) failed.set(reason, (failed.get(reason) ?? 0) + 1)
    const startedTwice = [...watch.starts.values()].filter((n) => n > 1).length
    const calledTwice = [...agent.firstCalls.values()].filter((n) => n > 1).length
    const perWorker = new Map<string, number>()
    for (const workerId of watch.workers.values()) perWorker.set(workerId, (perWorker.get(workerId) ?? 0) + 1)
    const errors = [...new Set(watch.errors.values())].slice(0, 3)
    return { held, failed, errors, twice: Math.max(startedTwice, calledTwice), redelivered: await redeliveries(servers.monitorUrl), shares: [...perWorker.values()] }
  } finally {
    await stoppers.stopAll()
  }
}

/** TaskCreated messages the dispatch consumers delivered more than once (nats-server's `/jsz`). */
async function redeliveries(monitorUrl: string): Promise<number> {
  const res = await fetch(`${monitorUrl}/jsz?consumers=true`)
  const jsz = (await res.json()) as { account_details?: { stream_detail?: { consumer_detail?: { name: string; num_redelivered: number }[] }[] }[] }
  const consumers = (jsz.account_details ?? []).flatMap((a) => a.stream_detail ?? []).flatMap((s) => s.consumer_detail ?? [])
  return consumers.filter((c) => c.name.startsWith('mats-dispatch-')).reduce((sum, c) => sum + c.num_redelivered, 0)
}

async function bullmqSide(runs: number, label: string): Promise<Held & { failed: number }> {
  const stoppers = new Stoppers()
  try {
    const redis = stoppers.add(await startRedis())
    const agent = agentRuns()
    const { fake } = await fakeModel(stoppers, agent.script)
    const name = `capacity-${randomUUID().slice(0, 8)}`
    const worker = stoppers.add(await startBullmqWorker(redis.url, name, runs, fake.baseUrl))
    const connections = [new Redis(redis.url, { maxRetriesPerRequest: null }), new Redis(redis.url, { maxRetriesPerRequest: null })] as const
    stoppers.add({
      stop: async () => {
        for (const connection of connections) connection.disconnect()
      },
    })
    const queue = new Queue(name, { connection: connections[0] })
    const events = new QueueEvents(name, { connection: connections[1] })
    stoppers.add({ stop: async () => void (await Promise.all([events.close(), queue.close()])) })
    await events.waitUntilReady()
    let ended = 0
    let failed = 0
    const allEnded = new Promise<void>((resolve) => {
      const count = () => {
        if (++ended === runs) resolve()
      }
      events.on('completed', count)
      events.on('failed', () => {
        failed++
        count()
      })
    })
    const jobs = Array.from({ length: runs }, (_, i) => ({ name: 'run', data: { brief: `Run brief ${label}-${i}: plan the launch posts` }, opts: { removeOnComplete: true } }))
    for (let i = 0; i < jobs.length; i += 100) await queue.addBulk(jobs.slice(i, i + 100))
    const finished = within(`${runs} BullMQ jobs`, allowedMs(runs), allEnded)
    const held = await watchHeld(
      () => worker.stats(),
      () => agent.active,
      runs,
      finished,
    )
    return { ...held, failed }
  } finally {
    await stoppers.stopAll()
  }
}

const f = (n: number, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d })

function heldLine(who: string, h: Held): string {
  return `${who}: held ${h.peakRuns} at once, RSS ${f(h.idleRssMiB)} → ${f(h.peakRssMiB)} MiB (${f(h.kibPerRun)} KiB per run held), CPU ${f(h.cpuMsPerRun, 1)} ms per run (${f(h.corePer1000, 2)} of a core per 1,000 held), loop delay p99 ≤ ${f(h.worstLoopP99Ms)} ms`
}

export async function main(): Promise<void> {
  say(
    `\ntarget 1: concurrent agent runs; ${RUNS} runs on one worker at concurrency ${RUNS} against a BullMQ worker at ${RUNS}, then ${SHARED_RUNS} on three; each run 3-8 model calls of ${CALL_MIN_MS / 1000}-${CALL_MAX_MS / 1000} s; ${ROUNDS} round(s)`,
  )
  const rss: number[] = []
  const cpu: number[] = []
  for (let r = 1; r <= ROUNDS; r++) {
    const mats = await matsSide(1, RUNS, RUNS, `m${r}`)
    const peer = await bullmqSide(RUNS, `b${r}`)
    const one = mats.held[0]
    if (!one) throw new Error('no worker figures')
    rss.push(one.kibPerRun / peer.kibPerRun)
    cpu.push(one.cpuMsPerRun / peer.cpuMsPerRun)
    say(`  round ${r}: ${heldLine('mats worker', one)}`)
    say(`           failed ${JSON.stringify(Object.fromEntries(mats.failed))} ${mats.errors.join(' | ')}, run twice ${mats.twice}, TaskCreated redelivered ${mats.redelivered}`)
    say(`           ${heldLine('BullMQ worker', peer)}; ${peer.failed} jobs failed`)
    say(`           ratios mats / BullMQ: memory per run held ${f(rss.at(-1) ?? 0, 2)}, CPU per run ${f(cpu.at(-1) ?? 0, 2)} (goal ≤ 2 each)`)
    const shared = await matsSide(3, SHARED_RUNS, RUNS, `s${r}`)
    const third = SHARED_RUNS / 3
    const worst = Math.max(...shared.shares.map((n) => Math.abs(n - third) / third))
    say(
      `           three workers, ${SHARED_RUNS} runs: shares ${shared.shares.join(' / ')} (worst ${f(worst * 100)} % from a third; goal ≤ 20 %), about ${f(shared.held[0]?.peakRuns ?? 0)} held by each at the peak`,
    )
    say(`           failed ${JSON.stringify(Object.fromEntries(shared.failed))}, run twice ${shared.twice}, TaskCreated redelivered ${shared.redelivered}`)
  }
  say(`\n  mats / BullMQ memory per run held: ${show(spread(rss), 2)}; CPU per run: ${show(spread(cpu), 2)} (goal ≤ 2)`)
}

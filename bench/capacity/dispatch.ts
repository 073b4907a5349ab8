/**
 * Target 2 (dispatch latency on an idle service) and target 4 (overhead per task).
 *
 *   TARGETS=dispatch npm run bench:capacity      ROUNDS=3 SEQUENTIAL=200 BURST=500 PROFILE=<dir>
 *
 * One mats process with every role (as `npm start` runs it), offline agents at 0 ms (a no-op
 * task), rate limits off, against its own nats-server and store. In interleaved rounds:
 * - SEQUENTIAL tasks one after another: POST sent → TaskStarted in the log, → TaskCompleted in
 *   the log (a core subscription of the bench sees each), and, for as many more, POST with
 *   waitSeconds → its answer saying `completed` (what a client that waits sees);
 * - a slot freed by a finished run refilled from a waiting queue: see refill.ts; measured with
 *   every role in one process and with the worker in its own;
 * - BURST tasks POSTed 10 at a time with no reads, until every consumer has settled: the mats
 *   process's CPU per task and nats-server's messages per task (its `/varz` counters, less
 *   what the idle service exchanges in as long), the bench's own subscription closed; and the
 *   same burst on the JetStream floor (bench/jetstream-floor.ts) in the bench's process, the
 *   baseline of both.
 * PROFILE=<dir> writes a V8 CPU profile of the mats process over each burst and prints where
 * its time went, by package and by function; with PROFILE_ALLOCATIONS=1 also what it allocated
 * (a sampling heap profile that keeps collected objects), per task, by package and by function.
 */
import { mkdtemp } from 'node:fs/promises'
import { join } from 'node:path'
import { percentile, show, spread } from '../stats.js'
import { clients, postTask, type Client } from './accounts.js'
import { jetStreamFloorBurst } from '../jetstream-floor.js'
import { summarizeAllocations, summarizeProfiles } from './profile.js'
import { measureRefill, refillRig } from './refill.js'
import { capacityServers, natsCounters, Stoppers, type CapacityServers } from './servers.js'
import { startMatsProcess, type MatsProcess } from './service-process.js'
import { settled } from './settle.js'
import { TaskWatch } from './task-watch.js'

const ROUNDS = Number(process.env.ROUNDS ?? 3)
const SEQUENTIAL = Number(process.env.SEQUENTIAL ?? 200)
const BURST = Number(process.env.BURST ?? 500)
const IN_FLIGHT = 10
/** The mats process's worker slots, and the floor's worker's. */
const WORKER_CONCURRENCY = 4
const IDLE_SAMPLE_MS = 3000
const say = (line: string) => process.stdout.write(`${line}\n`)

interface Round {
  running: number
  completed: number
  waited: number
  refill: number
  refillStarted: number
  /** The same with the worker in its own process. */
  refillApart: number
  refillApartStarted: number
  cpuMs: number
  /** The JetStream floor's CPU per task (jetstream-floor.ts), in the bench's own process, same burst. */
  floorCpuMs: number
  floorMessages: number
  messages: number
  inMsgs: number
  outMsgs: number
}

interface NoopRig {
  readonly servers: CapacityServers
  readonly mats: MatsProcess
  readonly url: string
  readonly client: Client
}

async function noopRig(stoppers: Stoppers): Promise<NoopRig> {
  const servers = stoppers.add(await capacityServers())
  const env = { NATS_URL: servers.natsUrl, MONGODB_URL: servers.mongoUrl, OFFLINE_AGENT_LATENCY_MS: '0', RATE_LIMITS_ENABLED: 'false', WORKER_CONCURRENCY: String(WORKER_CONCURRENCY) }
  const mats = stoppers.add(await startMatsProcess({ roles: ['api', 'worker', 'projector'], env }))
  const url = mats.url ?? ''
  const [client] = await clients(servers.natsUrl, servers.mongoUrl, url, 1)
  if (!client) throw new Error('no client')
  return { servers, mats, url, client }
}

/** POST → TaskStarted and → TaskCompleted in the log, one task at a time. */
async function sequential(rig: NoopRig, label: string): Promise<{ running: number[]; completed: number[] }> {
  const watch = await TaskWatch.open(rig.servers.natsUrl)
  const running: number[] = []
  const completed: number[] = []
  try {
    for (let i = 0; i < SEQUENTIAL; i++) {
      const sent = performance.now()
      const task = await postTask(rig.url, rig.client, `Dispatch brief ${label}-${i}: plan the launch posts`)
      await watch.ended(task.id, 30_000)
      const times = watch.times(task.id)
      if (times.TaskCompleted === undefined || times.TaskStarted === undefined) throw new Error(`task ${task.id} did not complete`)
      running.push(times.TaskStarted - sent)
      completed.push(times.TaskCompleted - sent)
    }
  } finally {
    await watch.close()
  }
  return { running, completed }
}

/** POST with waitSeconds, one at a time: sent → the answer, which must say `completed`. */
async function waited(rig: NoopRig, label: string): Promise<number[]> {
  const latencies: number[] = []
  for (let i = 0; i < SEQUENTIAL; i++) {
    const sent = performance.now()
    const task = await postTask(rig.url, rig.client, `Waited brief ${label}-${i}: plan the launch posts`, { waitSeconds: 30 })
    if (task.status !== 'completed') throw new Error(`POST with waitSeconds answered ${task.status}`)
    latencies.push(performance.now() - sent)
  }
  return latencies
}

/** CPU of the mats process and NATS messages per task over a burst without reads, less the idle service's own. */
async function overhead(rig: NoopRig, label: string, profileDir: string | undefined): Promise<{ cpuMs: number; inMsgs: number; outMsgs: number }> {
  await settled(rig.servers.monitorUrl)
  const idle = await sample(rig, async () => new Promise((r) => setTimeout(r, IDLE_SAMPLE_MS)))
  if (profileDir) await rig.mats.profileFrom()
  const busy = await sample(rig, async () => {
    let next = 0
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        for (let i = next++; i < BURST; i = next++) await postTask(rig.url, rig.client, `Overhead brief ${label}-${i}: plan the launch posts`)
      }),
    )
    await settled(rig.servers.monitorUrl)
  })
  if (profileDir) await rig.mats.profileTo(profileDir)
  const idleShare = busy.ms / idle.ms
  return {
    cpuMs: (busy.cpuMicros - idle.cpuMicros * idleShare) / 1000 / BURST,
    inMsgs: (busy.inMsgs - idle.inMsgs * idleShare) / BURST,
    outMsgs: (busy.outMsgs - idle.outMsgs * idleShare) / BURST,
  }
}

/**
 * The same burst on the JetStream floor (three events per task with mats' guarantees, a worker,
 * an ordered reader; no HTTP, read model, budget, identity or agent), run in the bench's own
 * process while the mats process idles: its CPU per task is what the messages alone cost here.
 */
async function floorCost(rig: NoopRig): Promise<{ cpuMs: number; messages: number }> {
  await settled(rig.servers.monitorUrl)
  const n0 = await natsCounters(rig.servers.monitorUrl)
  const cpu0 = process.cpuUsage()
  await jetStreamFloorBurst(rig.servers.natsUrl, BURST, IN_FLIGHT, WORKER_CONCURRENCY)
  const cpu = process.cpuUsage(cpu0)
  const n1 = await natsCounters(rig.servers.monitorUrl)
  return { cpuMs: (cpu.user + cpu.system) / 1000 / BURST, messages: (n1.inMsgs - n0.inMsgs + n1.outMsgs - n0.outMsgs) / BURST }
}

async function sample(rig: NoopRig, during: () => Promise<void>): Promise<{ ms: number; cpuMicros: number; inMsgs: number; outMsgs: number }> {
  const [cpu0, n0] = await Promise.all([rig.mats.stats(), natsCounters(rig.servers.monitorUrl)])
  const started = performance.now()
  await during()
  const ms = performance.now() - started
  const [cpu1, n1] = await Promise.all([rig.mats.stats(), natsCounters(rig.servers.monitorUrl)])
  return { ms, cpuMicros: cpu1.cpuMicros - cpu0.cpuMicros, inMsgs: n1.inMsgs - n0.inMsgs, outMsgs: n1.outMsgs - n0.outMsgs }
}

export async function main(): Promise<void> {
  const profileDir = process.env.PROFILE ? await mkdtemp(join(process.env.PROFILE, 'mats-dispatch-')) : undefined
  say(`\ntarget 2 and 4: dispatch on an idle service and overhead per task; ${ROUNDS} interleaved rounds of ${SEQUENTIAL} sequential tasks, a refill queue, a burst of ${BURST}`)
  const refillProfileDir = profileDir ? await mkdtemp(join(profileDir, 'refill-worker-')) : undefined
  const stoppers = new Stoppers()
  const rounds: Round[] = []
  try {
    const rig = await noopRig(stoppers)
    const refilling = await refillRig(stoppers, 'one')
    const refillingApart = await refillRig(stoppers, 'apart')
    // Warm-up: the first tasks compile code paths and open connections.
    await sequential(rig, 'warm-up')
    for (let r = 1; r <= ROUNDS; r++) {
      const seq = await sequential(rig, `r${r}`)
      const wait = await waited(rig, `r${r}`)
      const refill = await measureRefill(refilling, `r${r}`)
      const refillApart = await measureRefill(refillingApart, `r${r}`, refillProfileDir)
      const cost = await overhead(rig, `r${r}`, profileDir)
      const floor = await floorCost(rig)
      const round: Round = {
        running: percentile(seq.running, 50),
        completed: percentile(seq.completed, 50),
        waited: percentile(wait, 50),
        refill: refill.firstCallP50,
        refillStarted: refill.startedP50,
        refillApart: refillApart.firstCallP50,
        refillApartStarted: refillApart.startedP50,
        cpuMs: cost.cpuMs,
        floorCpuMs: floor.cpuMs,
        floorMessages: floor.messages,
        messages: cost.inMsgs + cost.outMsgs,
        inMsgs: cost.inMsgs,
        outMsgs: cost.outMsgs,
      }
      rounds.push(round)
      say(
        `  round ${r}: POST → running p50 ${round.running.toFixed(1)} ms (p99 ${percentile(seq.running, 99).toFixed(1)}), → completed p50 ${round.completed.toFixed(1)} ms (p99 ${percentile(seq.completed, 99).toFixed(1)}), POST waitSeconds → completed answer p50 ${round.waited.toFixed(1)} ms; refill: freed slot → next model call p50 ${round.refill.toFixed(1)} ms, → next TaskStarted p50 ${round.refillStarted.toFixed(1)} ms (worker in its own process: ${round.refillApart.toFixed(1)} and ${round.refillApartStarted.toFixed(1)} ms); per task: mats CPU ${round.cpuMs.toFixed(2)} ms (the JetStream floor ${round.floorCpuMs.toFixed(2)}), NATS messages ${round.messages.toFixed(1)} (${round.inMsgs.toFixed(1)} in, ${round.outMsgs.toFixed(1)} out; the floor ${round.floorMessages.toFixed(1)})`,
      )
    }
  } finally {
    await stoppers.stopAll()
  }
  const col = (pick: (r: Round) => number) => spread(rounds.map(pick))
  say('\n  figure                                         median (range of rounds)   goal')
  say(
    `  POST → TaskStarted in the log, p50 (ms)         ${show(
      col((r) => r.running),
      1,
    ).padEnd(26)} ≤ 10`,
  )
  say(
    `  POST → TaskCompleted in the log, p50 (ms)       ${show(
      col((r) => r.completed),
      1,
    ).padEnd(26)} ≤ 25`,
  )
  say(
    `  POST waitSeconds → answer completed, p50 (ms)   ${show(
      col((r) => r.waited),
      1,
    ).padEnd(26)}`,
  )
  say(
    `  freed slot → next run's first model call (ms)   ${show(
      col((r) => r.refill),
      1,
    ).padEnd(26)} ≤ 5`,
  )
  say(
    `  freed slot → next TaskStarted in the log (ms)   ${show(
      col((r) => r.refillStarted),
      1,
    ).padEnd(26)}`,
  )
  say(
    `  the same, the worker in its own process (ms)    ${show(
      col((r) => r.refillApart),
      1,
    )} and ${show(
      col((r) => r.refillApartStarted),
      1,
    )}`,
  )
  say(
    `  mats CPU per no-op task (ms)                    ${show(
      col((r) => r.cpuMs),
      2,
    ).padEnd(26)} ≤ 0.8`,
  )
  say(
    `    the JetStream floor's, the same burst (ms)    ${show(
      col((r) => r.floorCpuMs),
      2,
    ).padEnd(26)} mats / floor ${show(
      col((r) => r.cpuMs / r.floorCpuMs),
      1,
    )}`,
  )
  say(
    `  NATS messages per task (in + out)               ${show(
      col((r) => r.messages),
      1,
    ).padEnd(26)} ≤ 20`,
  )
  say(
    `    the JetStream floor's, the same burst         ${show(
      col((r) => r.floorMessages),
      1,
    )}`,
  )
  say(
    `    received from clients / sent to clients       ${show(
      col((r) => r.inMsgs),
      1,
    )} / ${show(
      col((r) => r.outMsgs),
      1,
    )}`,
  )
  if (profileDir) for (const line of [...(await summarizeProfiles(profileDir)), ...(await summarizeAllocations(profileDir, ROUNDS * BURST))]) say(line)
  if (refillProfileDir) for (const line of await summarizeProfiles(refillProfileDir, 'the worker process (apart) over the refill queue')) say(line)
}

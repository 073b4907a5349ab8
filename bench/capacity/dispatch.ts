/**
 * Target 2 (dispatch latency on an idle service) and target 4 (overhead per task).
 *
 *   TARGETS=dispatch npm run bench:capacity      ROUNDS=3 SEQUENTIAL=200 BURST=2000 WARM_UP=12000 PROFILE=<dir>
 *
 * One mats process with every role (as `npm start` runs it), offline agents at 0 ms (a no-op
 * task), rate limits off, against its own nats-server and store. In interleaved rounds:
 * - SEQUENTIAL tasks one after another: POST sent → TaskStarted in the log, → TaskCompleted in
 *   the log (a core subscription of the bench sees each), and, for as many more, POST with
 *   waitSeconds → its answer saying `completed` (what a client that waits sees);
 * - a slot freed by a finished run refilled from a waiting queue: see refill.ts; measured with
 *   every role in one process and with the worker in its own;
 * - BURST tasks POSTed 10 at a time with no reads, until every consumer has settled: the mats
 *   process's CPU per task (and of it, its main thread's; the rest is V8's compilers and GC
 *   helpers) and nats-server's messages per task (its `/varz` counters, less
 *   what the idle service exchanges in as long), the bench's own subscription closed; and the
 *   same burst on the JetStream floor (bench/jetstream-floor.ts) in the bench's process, the
 *   baseline of both; and with each role in its own process (roles-apart.ts), each one's CPU;
 *   and the api alone and the worker alone draining a backlog (roles-alone.ts), each one's CPU.
 * PROFILE=<dir> writes a V8 CPU profile of the mats process over each burst and prints where
 * its time went, by package and by function; with PROFILE_ALLOCATIONS=1 also what it allocated
 * (a sampling heap profile that keeps collected objects), per task, by package and by function.
 */
import { mkdtemp } from 'node:fs/promises'
import { join } from 'node:path'
import { percentile } from '../stats.js'
import { type Round, roundLine, summaryLines } from './dispatch-report.js'
import { postTask } from './accounts.js'
import { type Burst, floorCost, noopRig, overhead, type NoopRig, type TaskCost } from './overhead.js'
import { summarizeAllocations, summarizeProfiles } from './profile.js'
import { measureRolesAlone } from './roles-alone.js'
import { measureRolesApart, rolesApartRig } from './roles-apart.js'
import { measureRefill, type RefillLayout, refillRig } from './refill.js'
import { Stoppers } from './servers.js'
import { TaskWatch } from './task-watch.js'

const ROUNDS = Number(process.env.ROUNDS ?? 3)
const SEQUENTIAL = Number(process.env.SEQUENTIAL ?? 200)
/**
 * V8 collects its old generation every 1,000-2,000 no-op tasks in a steady burst, sooner after
 * the rounds' other phases (what they promoted is collected in the burst): a 500-task burst held
 * 0, 1 or 2 major GCs, and its figure followed (the process's other threads 0.11, 0.23-0.29,
 * 0.35-0.40 ms a task; 2026-11-28). A burst of 2,000 spreads them; each burst's count is printed.
 */
const BURST = Number(process.env.BURST ?? 2000)
const IN_FLIGHT = 10
/** The mats process's worker slots, and the floor's worker's. */
const WORKER_CONCURRENCY = 4
/** Offline agents at 0 ms (a no-op task), rate limits off. */
const NOOP_ENV = { OFFLINE_AGENT_LATENCY_MS: '0', RATE_LIMITS_ENABLED: 'false', WORKER_CONCURRENCY: String(WORKER_CONCURRENCY) }
const THE_BURST: Burst = { tasks: BURST, inFlight: IN_FLIGHT, workerConcurrency: WORKER_CONCURRENCY }
/** The warm-up's first tasks, whose cost is printed apart: a process that has just started. */
const COLD_TASKS = 1000
/**
 * A rig serves this many tasks before it is measured (WARM_UP): the figure is a long-running
 * process's. V8 (Node 24) optimizes a function with Maglev after about 400 calls and with
 * TurboFan after about 3,000, on threads whose CPU is the process's: the functions a task calls
 * once reached TurboFan between its 5,000th and 12,000th task, and until then a new process spent
 * 0.1-0.4 ms a task more (2026-11-28, docs/benchmarks.md; `BENCH_NODE_FLAGS=--trace-opt` shows it).
 * What the first tasks cost is printed apart.
 */
const WARM_UP_TASKS = Number(process.env.WARM_UP ?? 12_000)
if (!(WARM_UP_TASKS > COLD_TASKS)) throw new Error(`WARM_UP must be more than ${COLD_TASKS} tasks (the cold part it prints apart), not ${process.env.WARM_UP}`)
const say = (line: string) => process.stdout.write(`${line}\n`)

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

/** The warm-up's bursts: its first COLD_TASKS, then the rest; the mats process's CPU a task over each. */
async function warmUp(rig: NoopRig): Promise<{ cold: TaskCost; rest: TaskCost }> {
  const cold = await overhead(rig, 'warm-up cold', { ...THE_BURST, tasks: COLD_TASKS }, undefined)
  const rest = await overhead(rig, 'warm-up', { ...THE_BURST, tasks: WARM_UP_TASKS - COLD_TASKS }, undefined)
  return { cold, rest }
}

function warmUpLine({ cold, rest }: { cold: TaskCost; rest: TaskCost }): string {
  const part = (cost: TaskCost) => `${cost.cpuMs.toFixed(2)} ms (${cost.mainThreadMs.toFixed(2)} on its main thread)`
  return `  warm-up, mats CPU a task: after ${SEQUENTIAL} tasks one at a time, the next ${COLD_TASKS} ${part(cold)}, the ${WARM_UP_TASKS - COLD_TASKS} after them ${part(rest)}`
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

/**
 * A rig of its own (servers and mats processes) for one measurement, stopped after it: left
 * idle beside the others, its processes made every other round's CPU per task 35-50 % higher
 * (measured 2026-11-27). Each is warmed up first, as the one-process rig is.
 */
async function withRig<Rig, T>(start: (stoppers: Stoppers) => Promise<Rig>, measure: (rig: Rig) => Promise<T>): Promise<T> {
  const stoppers = new Stoppers()
  try {
    return await measure(await start(stoppers))
  } finally {
    await stoppers.stopAll()
  }
}

const refillOnce = (layout: RefillLayout, label: string, profileDir?: string) =>
  withRig(
    (stoppers) => refillRig(stoppers, layout),
    async (rig) => {
      await measureRefill(rig, `${label}-warm-up`)
      return measureRefill(rig, label, profileDir)
    },
  )

const rolesApartOnce = (label: string) =>
  withRig(
    (stoppers) => rolesApartRig(stoppers, NOOP_ENV),
    async (rig) => {
      await measureRolesApart(rig, `${label}-warm-up`, WARM_UP_TASKS, IN_FLIGHT)
      return measureRolesApart(rig, label, BURST, IN_FLIGHT)
    },
  )

export async function main(): Promise<void> {
  const profileDir = process.env.PROFILE ? await mkdtemp(join(process.env.PROFILE, 'mats-dispatch-')) : undefined
  say(`\ntarget 2 and 4: dispatch on an idle service and overhead per task; ${ROUNDS} interleaved rounds of ${SEQUENTIAL} sequential tasks, a refill queue, a burst of ${BURST}`)
  const refillProfileDir = profileDir ? await mkdtemp(join(profileDir, 'refill-worker-')) : undefined
  const stoppers = new Stoppers()
  const rounds: Round[] = []
  try {
    const rig = await noopRig(stoppers, NOOP_ENV)
    // Warm-up: the first tasks compile code paths and open connections; then the burst's paths, and the floor's.
    await sequential(rig, 'warm-up')
    say(warmUpLine(await warmUp(rig)))
    await floorCost(rig, THE_BURST)
    for (let r = 1; r <= ROUNDS; r++) {
      const seq = await sequential(rig, `r${r}`)
      const wait = await waited(rig, `r${r}`)
      const refill = await refillOnce('one', `r${r}`)
      const refillApart = await refillOnce('apart', `r${r}`, refillProfileDir)
      const cost = await overhead(rig, `r${r}`, THE_BURST, profileDir)
      const floor = await floorCost(rig, THE_BURST)
      const apart = await rolesApartOnce(`r${r}`)
      const alone = await measureRolesAlone(`r${r}`, { tasks: BURST, inFlight: IN_FLIGHT, warmUp: WARM_UP_TASKS }, NOOP_ENV)
      const round: Round = {
        running: percentile(seq.running, 50),
        runningP99: percentile(seq.running, 99),
        completed: percentile(seq.completed, 50),
        completedP99: percentile(seq.completed, 99),
        waited: percentile(wait, 50),
        refill,
        refillApart,
        cost,
        floor,
        apart,
        alone,
      }
      rounds.push(round)
      say(roundLine(r, round))
    }
  } finally {
    await stoppers.stopAll()
  }
  for (const line of summaryLines(rounds)) say(line)
  if (profileDir) for (const line of [...(await summarizeProfiles(profileDir)), ...(await summarizeAllocations(profileDir, ROUNDS * BURST))]) say(line)
  if (refillProfileDir) for (const line of await summarizeProfiles(refillProfileDir, 'the worker process (apart) over the refill queue')) say(line)
}

/**
 * Target 4, overhead per task: a burst of no-op tasks POSTed `inFlight` at a time, with no reads,
 * until every consumer has settled. The mats process's CPU and nats-server's messages per task
 * (its `/varz` counters), less what the idle service spends in as long; and the same burst on
 * the JetStream floor (bench/jetstream-floor.ts), the baseline of both.
 */
import { forEachAtMost } from '../../consumers/schedules/at-most.js'
import { jetStreamFloorBurst } from '../jetstream-floor.js'
import { oneClient, postTask, type Client } from './accounts.js'
import { cpuMicrosSince } from './parts-cpu.js'
import { capacityServers, natsCounters, type CapacityServers, type Stoppers } from './servers.js'
import { startMatsProcess, type MatsProcess } from './service-process.js'
import { settled } from './settle.js'

export const IDLE_SAMPLE_MS = 3000

export interface Burst {
  readonly tasks: number
  readonly inFlight: number
  /** The mats process's worker slots, and the floor's worker's. */
  readonly workerConcurrency: number
}

/** One mats process with every role (as `npm start` runs it) on servers of its own. */
export interface NoopRig {
  readonly servers: CapacityServers
  readonly mats: MatsProcess
  readonly url: string
  readonly client: Client
}

export async function noopRig(stoppers: Stoppers, noopEnv: Record<string, string>): Promise<NoopRig> {
  const servers = stoppers.add(await capacityServers())
  const env = { NATS_URL: servers.natsUrl, MONGODB_URL: servers.mongoUrl, ...noopEnv }
  const mats = stoppers.add(await startMatsProcess({ roles: ['api', 'worker', 'projector'], env }))
  const url = mats.url ?? ''
  const client = await oneClient(servers, url)
  return { servers, mats, url, client }
}

/** The burst's tasks POSTed `inFlight` at a time, then every consumer settled. */
export async function postBurst(rig: Pick<NoopRig, 'servers' | 'url' | 'client'>, brief: string, burst: Pick<Burst, 'tasks' | 'inFlight'>): Promise<void> {
  await forEachAtMost(
    Array.from({ length: burst.tasks }, (_, i) => i),
    burst.inFlight,
    async (i) => {
      await postTask(rig.url, rig.client, `${brief}-${i}: plan the launch posts`)
    },
  )
  await settled(rig.servers.monitorUrl)
}

/** How much a counter grew over a window of `ms`. */
export interface Growth {
  readonly grew: number
  readonly ms: number
}

/** What a counter grew over `busy` beyond what it grows idle in as long. */
export function lessIdle(busy: Growth, idle: Growth): number {
  return busy.grew - idle.grew * (busy.ms / idle.ms)
}

/**
 * How much each counter grew over `during`, less what it grows idle in as long (sampled first,
 * for IDLE_SAMPLE_MS, once the servers have settled): what `during` itself cost.
 */
export async function beyondIdle(monitorUrl: string, read: () => Promise<number[]>, during: () => Promise<void>): Promise<number[]> {
  const over = async (what: () => Promise<void>) => {
    const before = await read()
    const started = performance.now()
    await what()
    const ms = performance.now() - started
    return { ms, grew: (await read()).map((value, i) => value - (before[i] ?? 0)) }
  }
  await settled(monitorUrl)
  const idle = await over(() => new Promise((r) => setTimeout(r, IDLE_SAMPLE_MS)))
  const busy = await over(during)
  return busy.grew.map((grew, i) => lessIdle({ grew, ms: busy.ms }, { grew: idle.grew[i] ?? 0, ms: idle.ms }))
}

/** What one no-op task cost over a burst, less the idle service's own. */
export interface TaskCost {
  /** The mats process's CPU, ms. */
  readonly cpuMs: number
  /** Of it, in the kernel, ms. */
  readonly systemMs: number
  /** Of it, on the main thread, ms; the rest is its other threads' (V8's compilers and GC helpers above all). */
  readonly mainThreadMs: number
  /** V8's major GCs in the mats process over the whole burst (not a task), less the idle's (mostly none). */
  readonly majorGcs: number
  /** The mats process's write(2) calls: its sockets (NATS, MongoDB, HTTP), and any pipe or file it writes. */
  readonly writeCalls: number
  /** NATS messages, as nats-server counts them: received from clients, sent to them. */
  readonly inMsgs: number
  readonly outMsgs: number
}

/** CPU of the mats process and NATS messages per task over a burst without reads, less the idle service's own. */
export async function overhead(rig: NoopRig, label: string, burst: Burst, profileDir: string | undefined): Promise<TaskCost> {
  const read = async () => {
    const [stats, counters] = await Promise.all([rig.mats.stats(), natsCounters(rig.servers.monitorUrl)])
    return [stats.cpuMicros, stats.systemCpuMicros, stats.mainThreadCpuMicros, stats.writeCalls, counters.inMsgs, counters.outMsgs, stats.majorGcs]
  }
  const grew = await beyondIdle(rig.servers.monitorUrl, read, async () => {
    if (profileDir) await rig.mats.profileFrom()
    await postBurst(rig, `Overhead brief ${label}`, burst)
    if (profileDir) await rig.mats.profileTo(profileDir)
  })
  const [cpuMicros = 0, systemMicros = 0, mainThreadMicros = 0, writeCalls = 0, inMsgs = 0, outMsgs = 0, majorGcs = 0] = grew
  const perTask = (value: number) => value / burst.tasks
  return {
    cpuMs: perTask(cpuMicros) / 1000,
    systemMs: perTask(systemMicros) / 1000,
    mainThreadMs: perTask(mainThreadMicros) / 1000,
    majorGcs,
    writeCalls: perTask(writeCalls),
    inMsgs: perTask(inMsgs),
    outMsgs: perTask(outMsgs),
  }
}

/**
 * The same burst on the JetStream floor (three events per task with mats' guarantees, a worker,
 * an ordered reader; no HTTP, read model, budget, identity or agent), run in the bench's own
 * process while the mats process idles: its CPU per task is what the messages alone cost here.
 * Its set-up (a stream and two consumers, made and deleted) is counted: a few milliseconds.
 */
export interface FloorCost {
  /** The bench process's CPU per task, ms. */
  readonly cpuMs: number
  /** NATS messages per task, in and out. */
  readonly messages: number
}

export async function floorCost(rig: NoopRig, burst: Burst): Promise<FloorCost> {
  const read = async () => {
    const counters = await natsCounters(rig.servers.monitorUrl)
    return [cpuMicrosSince(), counters.inMsgs + counters.outMsgs]
  }
  const floor = () => jetStreamFloorBurst(rig.servers.natsUrl, burst.tasks, burst.inFlight, burst.workerConcurrency).then(() => undefined)
  const [cpuMicros = 0, messages = 0] = await beyondIdle(rig.servers.monitorUrl, read, floor)
  return { cpuMs: cpuMicros / 1000 / burst.tasks, messages: messages / burst.tasks }
}

/**
 * Target 4, overhead per task: a burst of no-op tasks POSTed `inFlight` at a time, with no reads,
 * until every consumer has settled. The mats process's CPU and nats-server's messages per task
 * (its `/varz` counters), less what the idle service spends in as long; and the same burst on
 * the JetStream floor (bench/jetstream-floor.ts), the baseline of both.
 */
import { jetStreamFloorBurst } from '../jetstream-floor.js'
import { clients, postTask, type Client } from './accounts.js'
import { capacityServers, natsCounters, type CapacityServers, type Stoppers } from './servers.js'
import { startMatsProcess, type MatsProcess } from './service-process.js'
import { settled } from './settle.js'

const IDLE_SAMPLE_MS = 3000

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
  const [client] = await clients(servers.natsUrl, servers.mongoUrl, url, 1)
  if (!client) throw new Error('no client')
  return { servers, mats, url, client }
}

/** The burst's tasks POSTed `inFlight` at a time, then every consumer settled. */
export async function postBurst(rig: Pick<NoopRig, 'servers' | 'url' | 'client'>, brief: string, burst: Pick<Burst, 'tasks' | 'inFlight'>): Promise<void> {
  let next = 0
  await Promise.all(
    Array.from({ length: burst.inFlight }, async () => {
      for (let i = next++; i < burst.tasks; i = next++) await postTask(rig.url, rig.client, `${brief}-${i}: plan the launch posts`)
    }),
  )
  await settled(rig.servers.monitorUrl)
}

/** CPU of the mats process and NATS messages per task over a burst without reads, less the idle service's own. */
export async function overhead(rig: NoopRig, label: string, burst: Burst, profileDir: string | undefined): Promise<{ cpuMs: number; inMsgs: number; outMsgs: number }> {
  await settled(rig.servers.monitorUrl)
  const idle = await sample(rig, async () => new Promise((r) => setTimeout(r, IDLE_SAMPLE_MS)))
  if (profileDir) await rig.mats.profileFrom()
  const busy = await sample(rig, () => postBurst(rig, `Overhead brief ${label}`, burst))
  if (profileDir) await rig.mats.profileTo(profileDir)
  const idleShare = busy.ms / idle.ms
  return {
    cpuMs: (busy.cpuMicros - idle.cpuMicros * idleShare) / 1000 / burst.tasks,
    inMsgs: (busy.inMsgs - idle.inMsgs * idleShare) / burst.tasks,
    outMsgs: (busy.outMsgs - idle.outMsgs * idleShare) / burst.tasks,
  }
}

/**
 * The same burst on the JetStream floor (three events per task with mats' guarantees, a worker,
 * an ordered reader; no HTTP, read model, budget, identity or agent), run in the bench's own
 * process while the mats process idles: its CPU per task is what the messages alone cost here.
 */
export async function floorCost(rig: NoopRig, burst: Burst): Promise<{ cpuMs: number; messages: number }> {
  await settled(rig.servers.monitorUrl)
  const n0 = await natsCounters(rig.servers.monitorUrl)
  const cpu0 = process.cpuUsage()
  await jetStreamFloorBurst(rig.servers.natsUrl, burst.tasks, burst.inFlight, burst.workerConcurrency)
  const cpu = process.cpuUsage(cpu0)
  const n1 = await natsCounters(rig.servers.monitorUrl)
  return { cpuMs: (cpu.user + cpu.system) / 1000 / burst.tasks, messages: (n1.inMsgs - n0.inMsgs + n1.outMsgs - n0.outMsgs) / burst.tasks }
}

async function sample(rig: NoopRig, during: () => Promise<void>): Promise<{ ms: number; cpuMicros: number; inMsgs: number; outMsgs: number }> {
  const [cpu0, n0] = await Promise.all([rig.mats.stats(), natsCounters(rig.servers.monitorUrl)])
  const started = performance.now()
  await during()
  const ms = performance.now() - started
  const [cpu1, n1] = await Promise.all([rig.mats.stats(), natsCounters(rig.servers.monitorUrl)])
  return { ms, cpuMicros: cpu1.cpuMicros - cpu0.cpuMicros, inMsgs: n1.inMsgs - n0.inMsgs, outMsgs: n1.outMsgs - n0.outMsgs }
}

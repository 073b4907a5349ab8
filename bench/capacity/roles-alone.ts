/**
 * Target 4's split: the api and the worker each at work with nothing else at work, on servers
 * of their own. Beside the same roles apart in a burst (roles-apart.ts), where all three run at
 * once on the machine's cores, the difference is what running mixed costs each.
 * - The api alone: an api-only process (no worker or projector exists, so its tasks stay
 *   queued) takes as many POSTs to warm it, then the burst's; its CPU per task beyond idle.
 * - The worker alone: the api stopped, a worker-only process starts on the queue the api left
 *   (the warm-up's tasks first, then the burst's); its CPU from when the warm-up's have left
 *   MATS_DISPATCH (a work queue: a task leaves it when its worker acknowledges it, after
 *   recording its end) to when the burst's have, per task that left, less its idle CPU in as long.
 * The projector alone is not measured: on a log left for it, it catches up in batches larger
 * than it ever writes live, which is not what it costs in a burst.
 */
import { DISPATCH_STREAM } from '../../src/infra/nats/dispatch-stream.js'
import { oneClient } from './accounts.js'
import { beyondIdle, postBurst } from './overhead.js'
import { capacityServers, Stoppers } from './servers.js'
import { startMatsProcess, type MatsProcess } from './service-process.js'

/** How often the queue's depth is read while the worker drains it. */
const POLL_MS = 10
/** As overhead.ts's beyondIdle samples it. */
const IDLE_SAMPLE_MS = 3000
const DRAIN_DEADLINE_MS = 300_000

/** CPU ms per no-op task of each role measured alone. */
export interface CpuAlone {
  readonly api: number
  readonly worker: number
}

export interface AloneBurst {
  readonly tasks: number
  readonly inFlight: number
  readonly warmUp: number
}

export async function measureRolesAlone(label: string, burst: AloneBurst, env: Record<string, string>): Promise<CpuAlone> {
  const stoppers = new Stoppers()
  try {
    const servers = stoppers.add(await capacityServers())
    const common = { ...env, NATS_URL: servers.natsUrl, MONGODB_URL: servers.mongoUrl }
    const api = await startMatsProcess({ roles: ['api'], env: common })
    const apiCpu = await (async () => {
      try {
        const rig = { servers, url: api.url ?? '', client: await oneClient(servers, api.url ?? '') }
        await postBurst(rig, `Alone warm-up brief ${label}`, { tasks: burst.warmUp, inFlight: burst.inFlight })
        const [micros = 0] = await beyondIdle(
          servers.monitorUrl,
          async () => [(await api.stats()).cpuMicros],
          () => postBurst(rig, `Alone brief ${label}`, burst),
        )
        return micros / 1000 / burst.tasks
      } finally {
        await api.stop()
      }
    })()
    const worker = stoppers.add(await startMatsProcess({ roles: ['worker'], env: common }))
    return { api: apiCpu, worker: await drainCost(servers.monitorUrl, worker, burst) }
  } finally {
    await stoppers.stopAll()
  }
}

/**
 * The worker's CPU ms per task over the tasks after the first `warmUp` to leave the queue, less
 * its idle CPU in as long. The queue is made when the worker starts (it provisions the stream,
 * which then sources every TaskCreated already in the log), so the tasks that left it are the
 * ones it stored less the ones it holds.
 */
async function drainCost(monitorUrl: string, worker: MatsProcess, burst: AloneBurst): Promise<number> {
  const deadline = Date.now() + DRAIN_DEADLINE_MS
  const reading = async () => {
    const [stats, queue] = await Promise.all([worker.stats(), dispatchQueue(monitorUrl)])
    return { cpuMicros: stats.cpuMicros, left: queue.stored - queue.held, at: performance.now() }
  }
  const once = async (done: (left: number) => boolean) => {
    for (;;) {
      const now = await reading()
      if (done(now.left)) return now
      if (Date.now() > deadline) throw new Error(`the worker alone took ${now.left} of ${burst.warmUp + burst.tasks} tasks`)
      await new Promise((resolve) => setTimeout(resolve, POLL_MS))
    }
  }
  const from = await once((left) => left >= burst.warmUp)
  const to = await once((left) => left >= burst.warmUp + burst.tasks)
  const idleFrom = await reading()
  await new Promise((resolve) => setTimeout(resolve, IDLE_SAMPLE_MS))
  const idleTo = await reading()
  const idlePerMs = (idleTo.cpuMicros - idleFrom.cpuMicros) / (idleTo.at - idleFrom.at)
  const busyMicros = to.cpuMicros - from.cpuMicros - idlePerMs * (to.at - from.at)
  return busyMicros / 1000 / (to.left - from.left)
}

interface StreamsJsz {
  account_details?: { stream_detail?: { name: string; state: { messages: number; last_seq: number } }[] }[]
}

/** MATS_DISPATCH as nats-server's monitoring port sees it: every message it stored (a work queue numbers them from 1), and those it still holds. */
async function dispatchQueue(monitorUrl: string): Promise<{ stored: number; held: number }> {
  const res = await fetch(`${monitorUrl}/jsz?streams=true`)
  const jsz = (await res.json()) as StreamsJsz
  const dispatch = (jsz.account_details ?? []).flatMap((a) => a.stream_detail ?? []).find((s) => s.name === DISPATCH_STREAM)
  return { stored: dispatch?.state.last_seq ?? 0, held: dispatch?.state.messages ?? 0 }
}

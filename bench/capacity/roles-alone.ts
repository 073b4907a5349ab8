/**
 * Target 4's split: the api and the worker each at work without the other roles, on servers of
 * their own (beside the bench's idle all-roles rig, as the roles apart run). Against the same
 * roles apart in a burst (roles-apart.ts), the difference is what running beside the others
 * costs each: sharing the machine's cores, and the other roles' messages (the api's spend view
 * follows each task's end, every process hears the projector's batches); for the worker, also
 * a burst's arrivals against draining a backlog.
 * - The api alone: an api-only process (no worker or projector exists, so its tasks stay
 *   queued) takes as many POSTs to warm it, then the burst's; its CPU per task beyond idle.
 * - The worker alone, draining a backlog: the api stopped, a worker-only process starts on the
 *   queue the api left (the warm-up's tasks first, then the burst's); its CPU from when the
 *   warm-up's have left MATS_DISPATCH (a work queue: a task leaves it when its worker
 *   acknowledges it, after recording its end) to when the burst's have, per task, less its idle
 *   CPU in as long.
 * The projector alone is not measured: on a log left for it, it catches up in batches larger
 * than it ever writes live, which is not what it costs in a burst.
 */
import { oneClient } from './accounts.js'
import { beyondIdle, type Burst, IDLE_SAMPLE_MS, lessIdle, postBurst } from './overhead.js'
import { capacityServers, type CapacityServers, Stoppers } from './servers.js'
import { startMatsProcess, type MatsProcess } from './service-process.js'
import { dispatchQueue } from './settle.js'

/** How often the queue is read while the worker drains it: nats-server's monitoring port only, not the worker. */
const POLL_MS = 10
const DRAIN_DEADLINE_MS = 300_000

/** CPU ms per no-op task of the api alone, and of the worker alone draining a backlog. */
export interface CpuAlone {
  readonly api: number
  readonly worker: number
}

export type AloneBurst = Pick<Burst, 'tasks' | 'inFlight'> & { readonly warmUp: number }

export async function measureRolesAlone(label: string, burst: AloneBurst, env: Record<string, string>): Promise<CpuAlone> {
  const stoppers = new Stoppers()
  try {
    const servers = stoppers.add(await capacityServers())
    const common = { ...env, NATS_URL: servers.natsUrl, MONGODB_URL: servers.mongoUrl }
    const api = await apiAloneCost(servers, common, label, burst)
    const worker = stoppers.add(await startMatsProcess({ roles: ['worker'], env: common }))
    return { api, worker: await drainCost(servers.monitorUrl, worker, burst) }
  } finally {
    await stoppers.stopAll()
  }
}

/** The api-only process's CPU ms per POST over the burst, after the warm-up's; stopped after, its tasks left queued. */
async function apiAloneCost(servers: CapacityServers, env: Record<string, string>, label: string, burst: AloneBurst): Promise<number> {
  const api = await startMatsProcess({ roles: ['api'], env })
  try {
    const url = api.url ?? ''
    const rig = { servers, url, client: await oneClient(servers, url) }
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
}

/**
 * The worker's CPU ms per task over the burst's tasks, once the warm-up's have left the queue,
 * less its idle CPU in as long. The worker made the queue when it started (it provisions the
 * stream on servers that had none, and the stream then sources every TaskCreated in the log),
 * so the tasks that left it are the ones it stored less the ones it holds.
 */
async function drainCost(monitorUrl: string, worker: MatsProcess, burst: AloneBurst): Promise<number> {
  const total = burst.warmUp + burst.tasks
  const deadline = Date.now() + DRAIN_DEADLINE_MS
  const whenLeft = async (count: number) => {
    for (;;) {
      const queue = await dispatchQueue(monitorUrl)
      if (queue.stored > total) throw new Error(`MATS_DISPATCH stored ${queue.stored} tasks, ${total} were posted`)
      if (queue.stored - queue.held >= count) return { left: queue.stored - queue.held, cpuMicros: (await worker.stats()).cpuMicros, at: performance.now() }
      if (Date.now() > deadline) throw new Error(`the worker alone took ${queue.stored - queue.held} of ${total} tasks`)
      await new Promise((resolve) => setTimeout(resolve, POLL_MS))
    }
  }
  const from = await whenLeft(burst.warmUp)
  // Every task has left the queue: each was acknowledged after its end was recorded, so the
  // worker's work on them is done. (Not `settled`: the stopped api's ordered consumers stay on
  // the server, falling behind, until their inactivity threshold removes them.)
  const to = await whenLeft(total)
  const idleFrom = { cpuMicros: (await worker.stats()).cpuMicros, at: performance.now() }
  await new Promise((resolve) => setTimeout(resolve, IDLE_SAMPLE_MS))
  const idle = { grew: (await worker.stats()).cpuMicros - idleFrom.cpuMicros, ms: performance.now() - idleFrom.at }
  const busyMicros = lessIdle({ grew: to.cpuMicros - from.cpuMicros, ms: to.at - from.at }, idle)
  return busyMicros / 1000 / (to.left - from.left)
}

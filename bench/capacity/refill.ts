/**
 * A slot freed by a finished run, refilled from a waiting queue: one worker at concurrency 1
 * holds QUEUE tasks (the first run's model call is held until all are POSTed), and each run is
 * one model call of the fake model server answered after REFILL_HOLD_MS. For each run after
 * the first: the fake server's answer to the run before → this run's model call arriving (the
 * slot's whole turnaround: the agent returning, the next claim appended, the session read,
 * the prompt built and sent) and → this run's TaskStarted in the log.
 */
import { percentile } from '../stats.js'
import { oneClient, postTask, type Client } from './accounts.js'
import { fakeModel } from './model-rig.js'
import { capacityServers, type CapacityServers, type Stoppers } from './servers.js'
import { startMatsProcess, type MatsProcess } from './service-process.js'
import { TaskWatch } from './task-watch.js'

const QUEUE = Number(process.env.QUEUE ?? 50)
const REFILL_HOLD_MS = 20

interface Call {
  arrived: number
  answered?: number
}

export interface RefillRig {
  readonly servers: CapacityServers
  readonly url: string
  readonly client: Client
  readonly calls: Map<string, Call>
  /** The process that runs the worker role (with `apart`, that role alone). */
  readonly worker: MatsProcess
  gate: { open: () => void; opened: Promise<void> }
}

function aGate(): RefillRig['gate'] {
  let open = (): void => undefined
  const opened = new Promise<void>((resolve) => {
    open = resolve
  })
  return { open, opened }
}

/**
 * `one`: a single mats process with every role (as `npm start` runs it); `apart`: the worker in
 * its own process (as a deployment that scales workers runs it), the api and projector in another.
 */
export type RefillLayout = 'one' | 'apart'

export async function refillRig(stoppers: Stoppers, layout: RefillLayout): Promise<RefillRig> {
  const servers = stoppers.add(await capacityServers())
  const calls = new Map<string, Call>()
  const rig: { gate: RefillRig['gate'] } = { gate: aGate() }
  const { env } = await fakeModel(stoppers, async (request) => {
    const call: Call = { arrived: performance.now() }
    calls.set(request.brief, call)
    if (request.brief.endsWith('-0')) await rig.gate.opened
    await new Promise((r) => setTimeout(r, REFILL_HOLD_MS))
    call.answered = performance.now()
    return { text: '# Done\n\nThe plan.' }
  })
  const common = { ...env, NATS_URL: servers.natsUrl, MONGODB_URL: servers.mongoUrl, RATE_LIMITS_ENABLED: 'false', WORKER_CONCURRENCY: '1' }
  const mats = stoppers.add(await startMatsProcess({ roles: layout === 'one' ? ['api', 'worker', 'projector'] : ['api', 'projector'], env: common }))
  const worker = layout === 'apart' ? stoppers.add(await startMatsProcess({ roles: ['worker'], env: common })) : mats
  const url = mats.url ?? ''
  const client = await oneClient(servers, url)
  return Object.assign(rig, { servers, url, client, calls, worker })
}

/** p50 ms from a freed slot to the next run's first model call, and to its TaskStarted in the log. */
export interface RefillFigures {
  readonly firstCallP50: number
  readonly startedP50: number
}

/** `profileDir`: a V8 CPU profile of the worker's process over the queue's runs is written there. */
export async function measureRefill(rig: RefillRig, label: string, profileDir?: string): Promise<RefillFigures> {
  rig.gate = aGate()
  const watch = await TaskWatch.open(rig.servers.natsUrl)
  try {
    const briefs = Array.from({ length: QUEUE }, (_, i) => `Refill brief ${label}-${i}`)
    const ids: string[] = []
    for (const brief of briefs) ids.push((await postTask(rig.url, rig.client, brief)).id)
    if (profileDir) await rig.worker.profileFrom()
    rig.gate.open()
    for (const id of ids) await watch.ended(id, 60_000)
    if (profileDir) await rig.worker.profileTo(profileDir)
    const order = briefs.map((brief, i) => ({ call: rig.calls.get(brief), id: ids[i] ?? '' })).sort((a, b) => (a.call?.arrived ?? 0) - (b.call?.arrived ?? 0))
    const firstCall: number[] = []
    const started: number[] = []
    for (let i = 1; i < order.length; i++) {
      const freed = order[i - 1]?.call?.answered
      const next = order[i]
      if (freed === undefined || !next?.call) throw new Error('a run made no model call')
      firstCall.push(next.call.arrived - freed)
      const startedAt = watch.times(next.id).TaskStarted
      if (startedAt !== undefined) started.push(startedAt - freed)
    }
    return { firstCallP50: percentile(firstCall, 50), startedP50: percentile(started, 50) }
  } finally {
    await watch.close()
  }
}

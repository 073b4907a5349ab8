/**
 * The mats processes of the waiting-clients bench: the API (the api role) and the projector, each
 * a child of its own, so that the API's memory is its own (not the load generator's, nor the
 * projector's cache of the documents it wrote). Started with `--expose-gc`, so that live memory is
 * measured after a full collection, not with the garbage of the requests that opened the clients.
 * The projector tells the parent, over IPC, when the tasks projection stored each task's end (the
 * answers' reference); the API answers questions: its memory after GC, its live readers and
 * handles, a heap snapshot.
 */
import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { writeHeapSnapshot } from 'node:v8'
import type { RecordedEvent } from '../../src/domain/message.js'
import { ROLES, type Role } from '../../src/service.js'
import { benchService } from '../harness.js'
import { benchNodeFlags } from '../node-flags.js'

type Ask = { readonly ask: 'state'; readonly gc: boolean } | { readonly ask: 'snapshot'; readonly path: string }
type Question = Ask & { readonly id: number }

/** The API process's state after a full GC. */
export interface ApiState {
  readonly rssBytes: number
  readonly heapUsedBytes: number
  readonly externalBytes: number
  /** Feeds and waits in the process's live-event hub. */
  readonly liveReaders: number
  /** Connections open on the HTTP server. */
  readonly httpConnections: number
  /** Whether the hub's shared consumer runs. */
  readonly consuming: boolean
  /** Node's active handles and requests by kind (Timeout, TCPSocketWrap, ...): what is left of clients once they went. */
  readonly resources: Record<string, number>
}

type Message = { readonly ready: string } | { readonly projected: readonly (readonly [string, number])[] } | { readonly id: number; readonly state?: ApiState; readonly snapshot?: string }

export interface ApiProcess {
  readonly pid: number
  readonly url: string
  /** When the tasks projection stored each ended task's terminal event (epoch ms, this machine's clock). */
  readonly projectedAt: ReadonlyMap<string, number>
  /** Set once the process exited, with its code or signal: an exit during the run is its failure, not the clients'. */
  exit(): string | null
  /** Its state now, after a full GC when `gc` (a pause of its own: not while latencies are measured). */
  state(gc?: boolean): Promise<ApiState>
  snapshot(path: string): Promise<string>
  stop(): Promise<void>
}

/** Epoch milliseconds with sub-millisecond precision: comparable between the bench's processes. */
export const epochMs = (): number => performance.timeOrigin + performance.now()

/** Starts a mats process with `roles` and resolves once they run (its `url` is '' without the api role). */
export function startApi(natsUrl: string, mongoUrl: string, env: Record<string, string>, roles: readonly Role[]): Promise<ApiProcess> {
  const child = fork(fileURLToPath(import.meta.url), ['--waiting-clients-api', natsUrl, mongoUrl, JSON.stringify(env), roles.join(',')], {
    execArgv: [...benchNodeFlags(), '--import', 'tsx', '--expose-gc'],
  })
  const projectedAt = new Map<string, number>()
  const pending = new Map<number, (message: Message) => void>()
  let exit: string | null = null
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exit = signal ?? `code ${code}`
      for (const answer of pending.values()) answer({ id: -1 })
      resolve()
    }),
  )
  let next = 0
  const ask = (question: Ask): Promise<Message> =>
    new Promise((resolve, reject) => {
      if (exit !== null) return reject(new Error(`the API process exited (${exit})`))
      const id = ++next
      pending.set(id, resolve)
      child.send({ ...question, id })
    })
  return new Promise((resolve, reject) => {
    child.on('message', (message: Message) => {
      if ('ready' in message) resolve(api(message.ready))
      else if ('projected' in message) for (const [taskId, at] of message.projected) projectedAt.set(taskId, at)
      else {
        pending.get(message.id)?.(message)
        pending.delete(message.id)
      }
    })
    void exited.then(() => reject(new Error(`the API process exited (${exit}) before it listened`)))
  })

  function api(url: string): ApiProcess {
    return {
      pid: child.pid ?? 0,
      url,
      projectedAt,
      exit: () => exit,
      async state(gc = true) {
        const { state } = (await ask({ ask: 'state', gc })) as { state?: ApiState }
        if (!state) throw new Error(`the API process exited (${exit})`)
        return state
      },
      async snapshot(path) {
        const { snapshot } = (await ask({ ask: 'snapshot', path })) as { snapshot?: string }
        if (!snapshot) throw new Error(`the API process exited (${exit})`)
        return snapshot
      },
      async stop() {
        if (exit === null) child.kill('SIGTERM')
        await exited
      },
    }
  }
}

/** The child's side: the service, its projection times, its answers. */
async function serve(natsUrl: string, mongoUrl: string, env: Record<string, string>, roles: Role[]): Promise<void> {
  let ended: (readonly [string, number])[] = []
  const onProjected = (projection: string, events: readonly RecordedEvent[]) => {
    if (projection !== 'tasks') return
    const at = epochMs()
    for (const e of events) if (e.type === 'TaskCompleted' || e.type === 'TaskFailed') ended.push([e.aggregateId, at])
  }
  const service = await benchService(natsUrl, mongoUrl, env, roles, { onProjected })
  // Sent in batches, not one IPC message per task: the parent reads them once the run is over.
  const flush = setInterval(() => {
    if (ended.length === 0) return
    process.send?.({ projected: ended } satisfies Message)
    ended = []
  }, 200)
  process.send?.({ ready: service.url ?? '' } satisfies Message)
  process.on('message', (question: Question) => {
    if (question.ask === 'snapshot') return void process.send?.({ id: question.id, snapshot: writeHeapSnapshot(question.path) } satisfies Message)
    const answer = (connections: number) => process.send?.({ id: question.id, state: stateNow(service.infra.liveEvents, connections, question.gc) } satisfies Message)
    if (service.server) service.server.server.getConnections((_, connections) => answer(connections))
    else answer(0)
  })
  process.once('SIGTERM', () => {
    clearInterval(flush)
    void service.stop().then(() => process.exit(0))
  })
}

function stateNow(hub: { readonly size: number; readonly consuming: boolean }, httpConnections: number, gc: boolean): ApiState {
  // Twice: the first collection may leave what finalizers freed for the second.
  if (gc) for (let i = 0; i < 2; i++) globalThis.gc?.()
  const memory = process.memoryUsage()
  const resources: Record<string, number> = {}
  for (const kind of process.getActiveResourcesInfo()) resources[kind] = (resources[kind] ?? 0) + 1
  return { rssBytes: memory.rss, heapUsedBytes: memory.heapUsed, externalBytes: memory.external, liveReaders: hub.size, httpConnections, consuming: hub.consuming, resources }
}

if (process.argv.includes('--waiting-clients-api')) {
  const [natsUrl = '', mongoUrl = '', env = '{}', roles = ''] = process.argv.slice(process.argv.indexOf('--waiting-clients-api') + 1)
  await serve(
    natsUrl,
    mongoUrl,
    JSON.parse(env) as Record<string, string>,
    roles.split(',').filter((r): r is Role => (ROLES as readonly string[]).includes(r)),
  )
}

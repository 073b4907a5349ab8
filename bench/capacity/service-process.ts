/**
 * One mats process as production runs it (the roles of BENCH_ROLES, configured from its
 * environment), in a child process of the bench: its CPU, memory and event loop are its own,
 * not the load generator's, and `node --cpu-prof` can profile it alone. It answers the
 * parent's questions over IPC: `stats` (CPU and memory so far), a CPU profile from now to
 * later (V8's profiler through node:inspector, as `node --cpu-prof` writes it), `stop`.
 */
import { fork } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { Session } from 'node:inspector/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pino from 'pino'
import { loadConfig } from '../../src/config.js'
import { ROLES, startService, type Role } from '../../src/service.js'
import { benchNodeFlags } from '../node-flags.js'
import { watchProcess, statsNow, type ProcessStats } from './child-stats.js'

export type { ProcessStats } from './child-stats.js'

/** PROFILE_ALLOCATIONS=1: with a CPU profile, V8's sampling heap profile of every allocation (collected ones too), for what drives GC. */
const ALLOCATIONS = process.env.PROFILE_ALLOCATIONS === '1'
type Question = 'stats' | 'stop' | 'profile-start' | 'profile-stop'
type Answer = { readonly ready: string | null } | { readonly stats: ProcessStats } | { readonly failed: string } | { readonly done: true }

export interface MatsProcess {
  readonly pid: number
  /** The api role's base URL, if it runs. */
  readonly url: string | null
  stats(): Promise<ProcessStats>
  /** Starts V8's CPU profiler in the process; `profileTo` stops it and writes the profile (`.cpuprofile`) into `dir`. */
  profileFrom(): Promise<void>
  profileTo(dir: string): Promise<void>
  stop(): Promise<void>
}

export interface MatsProcessOptions {
  readonly roles: readonly Role[]
  readonly env: Record<string, string>
}

/** Starts a mats process and resolves once its roles have started. */
export function startMatsProcess(options: MatsProcessOptions): Promise<MatsProcess> {
  const execArgv = [...benchNodeFlags(), '--import', 'tsx']
  // NATS requests get 5 s (default 800 ms): the bench shares a loaded machine, and a 503 would end its run.
  const defaults = { LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn', NATS_TIMEOUT_MS: process.env.NATS_TIMEOUT_MS ?? '5000', PORT: '0' }
  const env = { ...process.env, ...defaults, ...options.env, BENCH_ROLES: options.roles.join(',') }
  const child = fork(fileURLToPath(import.meta.url), ['--mats-process'], { execArgv, env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  let profileDir = ''
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const pending: { resolve: (answer: Answer) => void; reject: (err: Error) => void }[] = []
  child.on('message', (answer: Answer) => pending.shift()?.resolve(answer))
  child.once('exit', (code) => {
    for (const waiting of pending.splice(0)) waiting.reject(new Error(`mats process exited with ${code}`))
  })
  const ask = (question: Question | null): Promise<Answer> =>
    new Promise((resolve, reject) => {
      pending.push({ resolve, reject })
      if (question) child.send(question === 'profile-stop' ? { profileTo: profileDir } : question)
    })
  return ask(null).then((answer) => {
    if ('failed' in answer) throw new Error(`mats process did not start: ${answer.failed}`)
    return {
      pid: child.pid ?? 0,
      url: 'ready' in answer ? answer.ready : null,
      async stats() {
        const reply = await ask('stats')
        if (!('stats' in reply)) throw new Error('mats process did not answer with its stats')
        return reply.stats
      },
      async profileFrom() {
        await ask('profile-start')
      },
      async profileTo(dir: string) {
        profileDir = dir
        await ask('profile-stop')
      },
      async stop() {
        if (child.exitCode === null) child.send('stop')
        await exited
      },
    }
  })
}

async function serve(): Promise<void> {
  const roles = new Set((process.env.BENCH_ROLES ?? '').split(',').filter((r): r is Role => (ROLES as readonly string[]).includes(r)))
  const config = loadConfig(process.env)
  const service = await startService(config, pino({ level: config.LOG_LEVEL }), roles)
  const watch = watchProcess()
  process.send?.({ ready: service.url } satisfies Answer)
  const profiler = new Session()
  process.on('message', (question: Question | { profileTo: string }) => {
    if (question === 'stop') {
      void service.stop().finally(() => process.exit(0))
      return
    }
    if (question === 'profile-start') {
      profiler.connect()
      void profiler
        .post('Profiler.enable')
        .then(() => profiler.post('Profiler.start'))
        .then(() =>
          ALLOCATIONS ? profiler.post('HeapProfiler.startSampling', { samplingInterval: 16_384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true }) : undefined,
        )
        .then(() => process.send?.({ done: true } satisfies Answer))
      return
    }
    if (typeof question === 'object') {
      void profiler
        .post('Profiler.stop')
        .then(({ profile }) => writeFile(join(question.profileTo, `mats-${process.pid}-${Date.now()}.cpuprofile`), JSON.stringify(profile)))
        .then(async () => {
          if (!ALLOCATIONS) return
          const { profile } = await profiler.post('HeapProfiler.stopSampling')
          await writeFile(join(question.profileTo, `mats-${process.pid}-${Date.now()}.heapprofile`), JSON.stringify(profile))
        })
        .then(() => {
          profiler.disconnect()
          process.send?.({ done: true } satisfies Answer)
        })
      return
    }
    const stats = statsNow(watch)
    process.send?.({ stats } satisfies Answer)
  })
}

if (process.argv.includes('--mats-process')) {
  serve().catch((err: unknown) => {
    process.send?.({ failed: err instanceof Error ? err.message : String(err) } satisfies Answer, () => process.exit(1))
  })
}

// The footprint a user meets: how long a `mats` command takes, and how much memory the
// all-roles process holds once idle. Runs dist/ (built here when it is not current), as
// `npm start`, the image and `npx mats` do. `npm run bench:footprint`
//   FOOTPRINT_RUNS=7 (per command)   FOOTPRINT_IDLE_S=15 (idle wait before sampling RSS)
import { spawn, spawnSync } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { buildDist, distIsCurrent } from '../bin/dist.js'
import { DEV_NODE_FLAGS, PRODUCTION_NODE_FLAGS } from '../bin/node-flags.js'
import { freePort } from '../src/infra/local/servers.js'
import { benchServers } from './harness.js'
import { show, spread } from './stats.js'

const ROOT = resolve(import.meta.dirname, '..')
const MATS = resolve(ROOT, 'bin/mats.js')
const RUNS = Number(process.env.FOOTPRINT_RUNS ?? 7)
const IDLE_S = Number(process.env.FOOTPRINT_IDLE_S ?? 15)

/** Wall-clock and CPU (user + system) milliseconds of one `mats ...` run, which must succeed. */
function timeCommand(args: string[], env: Record<string, string>): { wallMs: number; cpuMs: number } {
  const started = performance.now()
  const result = spawnSync('/usr/bin/time', ['-f', '%U %S', process.execPath, MATS, ...args], { env: { ...process.env, ...env }, encoding: 'utf8' })
  const wallMs = performance.now() - started
  if (result.status !== 0) throw new Error(`mats ${args.join(' ')} exited ${result.status}: ${result.stderr}`)
  const [user = 0, system = 0] = (result.stderr.trim().split('\n').at(-1) ?? '').split(' ').map(Number)
  return { wallMs, cpuMs: (user + system) * 1000 }
}

function commandLatency(label: string, args: string[], env: Record<string, string>): void {
  timeCommand(args, env) // the first run fills node's compile cache
  const runs = Array.from({ length: RUNS }, () => timeCommand(args, env))
  console.log(`${label.padEnd(34)} wall ${show(spread(runs.map((r) => r.wallMs)))} ms   cpu ${show(spread(runs.map((r) => r.cpuMs)))} ms`)
}

/**
 * Resident MiB, and of it the pages backed by files: mostly the node binary, whose ICU tables
 * a locale-formatted number at start made resident (8 MiB more, found 2026-11-27).
 */
async function residentMiB(pid: number): Promise<{ all: number; fileBacked: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN)
  return { all: kib('VmRSS') / 1024, fileBacked: kib('RssFile') / 1024 }
}

interface Idle {
  readonly rss: number[]
  readonly fileBacked: number[]
}

async function idleResidentMiB(env: Record<string, string>, nodeFlags: readonly string[] = []): Promise<Idle> {
  const child = spawn(process.execPath, [...nodeFlags, MATS, 'start', '--role', 'all'], { env: { ...process.env, ...env, PORT: String(await freePort()), LOG_LEVEL: 'warn' }, stdio: 'ignore' })
  try {
    await new Promise((done) => setTimeout(done, IDLE_S * 1000))
    if (child.exitCode !== null) throw new Error(`mats start exited ${child.exitCode}`)
    const samples: Idle = { rss: [], fileBacked: [] }
    for (let i = 0; i < 5; i++) {
      const { all, fileBacked } = await residentMiB(child.pid!)
      samples.rss.push(all)
      samples.fileBacked.push(fileBacked)
      await new Promise((done) => setTimeout(done, 1000))
    }
    return samples
  } finally {
    child.kill('SIGTERM')
    await new Promise((done) => child.once('exit', done))
  }
}

if (!distIsCurrent(ROOT) && !buildDist(ROOT)) throw new Error('the build failed')
console.log(`mats footprint on Node ${process.versions.node}: ${RUNS} runs per command (after one warm-up), idle RSS after ${IDLE_S} s`)
const servers = await benchServers()
try {
  const env = { NATS_URL: servers.natsUrl, MONGODB_URL: servers.mongoUrl, LOG_LEVEL: 'warn' }
  commandLatency('mats --help', ['--help'], env)
  commandLatency('mats projections status', ['projections', 'status'], env)
  commandLatency('mats accounts create', ['accounts', 'create', '--name', 'Footprint', '--json'], env)
  const mib = (idle: Idle) => `${show(spread(idle.rss), 1)} MiB, file-backed ${show(spread(idle.fileBacked), 1)}`
  const rss = await idleResidentMiB(env)
  console.log(`${'mats start (all roles), idle RSS'.padEnd(34)} ${mib(rss)}`)
  // What `npm start` runs: the same process with the young generation it gives a laptop (scripts/start.mjs).
  const laptop = await idleResidentMiB(env, DEV_NODE_FLAGS)
  console.log(`${'  the same as npm start runs it'.padEnd(34)} ${mib(laptop)} (${DEV_NODE_FLAGS.join(' ')}; goal ≤ 130)`)
  // What the image runs: the young generation pinned at its working size (ADR 0066).
  const production = await idleResidentMiB(env, PRODUCTION_NODE_FLAGS)
  console.log(`${'  the same as the image runs it'.padEnd(34)} ${mib(production)} (${PRODUCTION_NODE_FLAGS.join(' ')})`)
} finally {
  await servers.stop()
}

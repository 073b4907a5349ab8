/**
 * Target 6, memory over time.
 *
 *   TARGETS=soak npm run bench:capacity      SOAK_MINUTES=30 SOAK_RATE=50 TASK_MS=200
 *
 * An `api`, a `worker` and a `projector` process, each its own, take SOAK_RATE tasks a second
 * (offline agents of TASK_MS) for SOAK_MINUTES. Every 10 s each process's resident memory and
 * event-loop delay (p99 over the 10 s) are sampled; the last third of the run is compared with
 * the first (the issue's "last 10 minutes within 10 % of the first 10" for 30 minutes), with
 * which memory moved (V8's heap used and held, external memory) and RSS and the held heap by
 * sixths of the run (still rising, or levelled). A sample a process did not answer is left
 * out of its means. At the
 * end, every task POSTed must have ended (0 lost) and none may still be waiting or running
 * SETTLE_S after the last POST (0 stuck).
 */
import { oneClient, postTask } from './accounts.js'
import type { ProcessStats } from './child-stats.js'
import { capacityServers, Stoppers } from './servers.js'
import { startMatsProcess, type MatsProcess } from './service-process.js'
import { TaskWatch } from './task-watch.js'

const MINUTES = Number(process.env.SOAK_MINUTES ?? 30)
const RATE = Number(process.env.SOAK_RATE ?? 50)
const TASK_MS = Number(process.env.TASK_MS ?? 200)
const SETTLE_S = 60
const SAMPLE_MS = 10_000
const MAX_IN_FLIGHT = 200
const say = (line: string) => process.stdout.write(`${line}\n`)

interface Sample {
  readonly at: number
  readonly stats: Record<string, ProcessStats>
}

/** The mean of the values a process answered (NaN where it answered none). */
function mean(values: readonly number[]): number {
  const answered = values.filter(Number.isFinite)
  return answered.length === 0 ? Number.NaN : answered.reduce((a, b) => a + b, 0) / answered.length
}

/** One figure of one role over the run, as the means of `parts` equal slices of it. */
function slices(samples: readonly Sample[], role: string, pick: (s: ProcessStats) => number, parts: number): number[] {
  const values = samples.map((s) => (s.stats[role] ? pick(s.stats[role]) : Number.NaN))
  return Array.from({ length: parts }, (_, i) => mean(values.slice(Math.round((i * values.length) / parts), Math.round(((i + 1) * values.length) / parts))))
}

function compare(samples: readonly Sample[], role: string, pick: (s: ProcessStats) => number): { first: number; last: number; change: number } {
  const thirds = slices(samples, role, pick, 3)
  const [first = Number.NaN, last = Number.NaN] = [thirds[0], thirds[2]]
  return { first, last, change: (last - first) / first }
}

/** Whether a figure keeps rising or has levelled: its mean in each sixth of the run. */
const bySixth = (samples: readonly Sample[], role: string, pick: (s: ProcessStats) => number) =>
  slices(samples, role, pick, 6)
    .map((v) => v.toFixed(0))
    .join(' → ')

const pct = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)} %`
const mib = (bytes: number) => bytes / 2 ** 20

/** RSS and loop delay against the goal, and which memory moved: V8's heap (used, held) or what lies outside it. */
function printRole(samples: readonly Sample[], role: string): void {
  const rss = compare(samples, role, (s) => mib(s.rssBytes))
  const loop = compare(samples, role, (s) => s.loopDelayP99Ms)
  const parts = {
    'heap used': (s: ProcessStats) => mib(s.heapUsedBytes),
    'heap held': (s: ProcessStats) => mib(s.heapTotalBytes),
    external: (s: ProcessStats) => mib(s.externalBytes),
    'array buffers': (s: ProcessStats) => mib(s.arrayBuffersBytes),
  }
  say(
    `  ${role.padEnd(9)} RSS first third ${rss.first.toFixed(1)} MiB, last third ${rss.last.toFixed(1)} MiB (${pct(rss.change)}; goal within ±10 %); loop delay p99 ${loop.first.toFixed(1)} → ${loop.last.toFixed(1)} ms (${pct(loop.change)})`,
  )
  const moved = Object.entries(parts).map(([what, pick]) => {
    const { first, last } = compare(samples, role, pick)
    return `${what} ${first.toFixed(1)} → ${last.toFixed(1)}`
  })
  say(`  ${''.padEnd(9)} of it (MiB, first third → last): ${moved.join(', ')}`)
  say(`  ${''.padEnd(9)} by sixths of the run (MiB): RSS ${bySixth(samples, role, (s) => mib(s.rssBytes))}; heap held ${bySixth(samples, role, (s) => mib(s.heapTotalBytes))}`)
  say(
    `  ${''.padEnd(9)} of the heap held, by sixths (MiB): young ${bySixth(samples, role, (s) => mib(s.youngHeldBytes))}; young large objects ${bySixth(samples, role, (s) => mib(s.youngLargeHeldBytes))}; old ${bySixth(samples, role, (s) => mib(s.oldHeldBytes))}`,
  )
}

export async function main(): Promise<void> {
  say(`\ntarget 6: soak; ${RATE} tasks/s for ${MINUTES} min through an api, a worker and a projector process, runs of ${TASK_MS} ms`)
  const stoppers = new Stoppers()
  try {
    const servers = stoppers.add(await capacityServers())
    const common = { NATS_URL: servers.natsUrl, MONGODB_URL: servers.mongoUrl, RATE_LIMITS_ENABLED: 'false', OFFLINE_AGENT_LATENCY_MS: String(TASK_MS) }
    const processes: Record<string, MatsProcess> = {
      api: stoppers.add(await startMatsProcess({ roles: ['api'], env: common })),
      worker: stoppers.add(await startMatsProcess({ roles: ['worker'], env: { ...common, WORKER_CONCURRENCY: '64' } })),
      projector: stoppers.add(await startMatsProcess({ roles: ['projector'], env: common })),
    }
    const url = processes.api?.url ?? ''
    const client = await oneClient(servers, url)
    const watch = await TaskWatch.open(servers.natsUrl)
    stoppers.add({ stop: () => watch.close() })
    const samples: Sample[] = []
    const sampler = setInterval(() => {
      const at = Date.now()
      // A process that does not answer (busy, or gone) leaves its role out of this sample, not the run.
      void Promise.allSettled(Object.entries(processes).map(async ([role, p]) => [role, await p.stats()] as const)).then((answers) =>
        samples.push({ at, stats: Object.fromEntries(answers.flatMap((a) => (a.status === 'fulfilled' ? [a.value] : []))) }),
      )
    }, SAMPLE_MS)
    const ids: string[] = []
    let inFlight = 0
    let skipped = 0
    const until = Date.now() + MINUTES * 60_000
    const started = Date.now()
    for (let n = 0; Date.now() < until; n++) {
      const due = started + (n * 1000) / RATE
      const wait = due - Date.now()
      if (wait > 0) await new Promise((r) => setTimeout(r, wait))
      if (inFlight >= MAX_IN_FLIGHT) {
        skipped++
        continue
      }
      inFlight++
      void postTask(url, client, `Soak brief ${n}: plan the launch posts`)
        .then((task) => ids.push(task.id))
        .finally(() => inFlight--)
    }
    while (inFlight > 0) await new Promise((r) => setTimeout(r, 100))
    clearInterval(sampler)
    const settleBy = Date.now() + SETTLE_S * 1000
    while (Date.now() < settleBy && ids.some((id) => !watch.times(id).TaskCompleted && !watch.times(id).TaskFailed)) await new Promise((r) => setTimeout(r, 500))
    const stuck = ids.filter((id) => !watch.times(id).TaskCompleted && !watch.times(id).TaskFailed).length
    const failed = ids.filter((id) => watch.times(id).TaskFailed !== undefined).length
    say(
      `  ${ids.length.toLocaleString('en-US')} tasks POSTed (${(ids.length / (MINUTES * 60)).toFixed(1)}/s; ${skipped} skipped with ${MAX_IN_FLIGHT} POSTs unanswered), ${failed} failed, ${stuck} not ended ${SETTLE_S} s after the last POST`,
    )
    for (const role of Object.keys(processes)) printRole(samples, role)
  } finally {
    await stoppers.stopAll()
  }
}

/** A worker process watched while it holds agent runs: its memory and CPU against the runs it held. */
import type { ProcessStats } from './child-stats.js'

export interface Held {
  /** Most runs held at once (first model call come, last not answered). */
  readonly peakRuns: number
  readonly idleRssMiB: number
  readonly peakRssMiB: number
  /** Resident memory above idle at the peak, per run held then. */
  readonly kibPerRun: number
  /** CPU of the whole window, per run that ended in it. */
  readonly cpuMsPerRun: number
  /** CPU share of one core over the window, per 1,000 runs held at the peak. */
  readonly corePer1000: number
  readonly worstLoopP99Ms: number
}

const SAMPLE_MS = 1000

/** Samples `stats` every second from now until `done` settles. */
export async function watchHeld(stats: () => Promise<ProcessStats>, held: () => number, runs: number, done: Promise<unknown>): Promise<Held> {
  const idle = await stats()
  const started = performance.now()
  let finished = false
  void done.finally(() => {
    finished = true
  })
  let peakRuns = 0
  let peakRss = idle.rssBytes
  let rssAtPeakRuns = idle.rssBytes
  let worstLoop = 0
  while (!finished) {
    await Promise.race([done.catch(() => undefined), new Promise((r) => setTimeout(r, SAMPLE_MS))])
    const now = await stats()
    const holding = held()
    peakRss = Math.max(peakRss, now.rssBytes)
    if (holding >= peakRuns) {
      peakRuns = holding
      rssAtPeakRuns = now.rssBytes
    }
    worstLoop = Math.max(worstLoop, now.loopDelayP99Ms)
  }
  await done
  const end = await stats()
  const cpuMs = (end.cpuMicros - idle.cpuMicros) / 1000
  const seconds = (performance.now() - started) / 1000
  const mib = (bytes: number) => bytes / 2 ** 20
  return {
    peakRuns,
    idleRssMiB: mib(idle.rssBytes),
    peakRssMiB: mib(peakRss),
    kibPerRun: peakRuns > 0 ? (Math.max(rssAtPeakRuns, peakRss) - idle.rssBytes) / 1024 / peakRuns : Number.NaN,
    cpuMsPerRun: cpuMs / runs,
    corePer1000: peakRuns > 0 ? (cpuMs / 1000 / seconds) * (1000 / peakRuns) : Number.NaN,
    worstLoopP99Ms: worstLoop,
  }
}

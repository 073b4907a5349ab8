/**
 * The idle phase: the schedules created in steps (RSS_AT, by default a tenth, half and all of
 * SCHEDULES), active but not due (`0 0 1 1 *`), with one scheduler following them all: its RSS
 * at each step and the slope per schedule; nats-server's messages and the scheduler's CPU per
 * minute with none and with all of them; the log's bytes per schedule created.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { MatsProcess } from '../capacity/service-process.js'
import { load, mib, natsPerMinute, rssOf, say, settled } from './measure.js'
import type { BenchStore } from './store.js'

export const IDLE_CRON = '0 0 1 1 *'

export interface IdleOptions {
  readonly schedules: number
  /** Counts at which the scheduler's RSS is read, ascending, the last being `schedules`. */
  readonly rssAt: readonly number[]
  readonly idleSeconds: number
}

/** nats-server's messages and the scheduler's CPU (ms), per minute over `seconds`. */
async function idleWindow(scheduler: MatsProcess, monitorUrl: string, seconds: number): Promise<{ msgs: number; cpuMs: number }> {
  const cpu0 = (await scheduler.stats()).cpuMicros
  const msgs = await natsPerMinute(monitorUrl, seconds)
  const cpu1 = (await scheduler.stats()).cpuMicros
  return { msgs, cpuMs: ((cpu1 - cpu0) * 60) / seconds / 1000 }
}

/** The least-squares slope of y over x. */
function slope(points: readonly (readonly [number, number])[]): number {
  const n = points.length
  const mx = points.reduce((s, [x]) => s + x, 0) / n
  const my = points.reduce((s, [, y]) => s + y, 0) / n
  const sxy = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0)
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0)
  return sxx === 0 ? Number.NaN : sxy / sxx
}

/** Returns nats-server's messages per minute with every schedule idle: the baseline the firing phase waits to settle back to. */
export async function idlePhase(options: IdleOptions, store: BenchStore, scheduler: MatsProcess, monitorUrl: string): Promise<number> {
  await sleep(5000)
  const rss: [number, number][] = [[0, await rssOf(scheduler)]]
  const { msgs: msgs0, cpuMs: cpu0 } = await idleWindow(scheduler, monitorUrl, options.idleSeconds)
  const bytes0 = await store.streamBytes()
  const quiet = Math.max(20, msgs0 / 12) * 1.5
  for (const count of options.rssAt) {
    const started = Date.now()
    await store.createSchedules(count - store.created, IDLE_CRON)
    say(`  ${count} schedules (${IDLE_CRON}) created, the last ${((Date.now() - started) / 1000).toFixed(1)} s; load ${load()}`)
    await store.untilActive(count)
    await settled(monitorUrl, quiet, `the scheduler following ${count}`)
    rss.push([count, await rssOf(scheduler)])
    say(`  scheduler RSS with ${count}: ${mib(rss.at(-1)![1])} MiB; load ${load()}`)
  }
  const bytesPerSchedule = ((await store.streamBytes()) - bytes0) / options.schedules
  const { msgs: msgsN, cpuMs: cpuN } = await idleWindow(scheduler, monitorUrl, options.idleSeconds)
  say(`  scheduler RSS (MiB) at ${rss.map(([n, bytes]) => `${n}: ${mib(bytes)}`).join(', ')}: slope ${slope(rss).toFixed(0)} B per schedule (least squares over these points)`)
  say(
    `  NATS messages per minute (in + out, /varz over ${options.idleSeconds} s): ${msgs0.toFixed(0)} with 0, ${msgsN.toFixed(0)} with ${options.schedules} idle: ${((msgsN - msgs0) / options.schedules).toFixed(3)} per idle schedule per minute`,
  )
  say(`  scheduler CPU per minute: ${cpu0.toFixed(0)} ms with 0, ${cpuN.toFixed(0)} ms with ${options.schedules} idle (it reads nothing while no schedule changes, ADR 0053)`)
  say(`  MATS_TASKS bytes per schedule created (ScheduleCreated): ${bytesPerSchedule.toFixed(0)}`)
  return msgsN
}

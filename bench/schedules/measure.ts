/** What the schedules bench measures and how it prints it: the machine's load, nats-server's counters, a scheduler's RSS, tick delays. */
import { loadavg } from 'node:os'
import { setTimeout as sleep } from 'node:timers/promises'
import { natsCounters } from '../capacity/servers.js'
import type { MatsProcess } from '../capacity/service-process.js'
import { percentile } from '../stats.js'
import type { Tick } from './fired-watch.js'

export const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')
export const say = (line: string) => process.stdout.write(`${line}\n`)
export const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1)
const ms = (n: number) => n.toFixed(0)

/** The scheduler's RSS: the median of five samples a second apart. */
export async function rssOf(scheduler: MatsProcess): Promise<number> {
  const samples: number[] = []
  for (let i = 0; i < 5; i++) {
    samples.push((await scheduler.stats()).rssBytes)
    await sleep(1000)
  }
  return percentile(samples, 50)
}

/** nats-server's messages (in + out) per minute over `seconds`. */
export async function natsPerMinute(monitorUrl: string, seconds: number): Promise<number> {
  const before = await natsCounters(monitorUrl)
  await sleep(seconds * 1000)
  const after = await natsCounters(monitorUrl)
  return ((after.inMsgs - before.inMsgs + after.outMsgs - before.outMsgs) * 60) / seconds
}

/**
 * Waits until nats-server carries no more than `quiet` messages in 5 s (the schedulers have
 * loaded what they follow), or `withinMs`: schedules firing every minute may never leave 5 s quiet.
 */
export async function settled(monitorUrl: string, quiet: number, what: string, withinMs = Number.POSITIVE_INFINITY): Promise<void> {
  const started = Date.now()
  let rate = Number.POSITIVE_INFINITY
  while (rate > quiet && Date.now() - started < withinMs) rate = (await natsPerMinute(monitorUrl, 5)) / 12
  const outcome = rate > quiet ? `still ${rate.toFixed(0)} messages in 5 s` : 'settled'
  say(`  ${what}: ${outcome} after ${((Date.now() - started) / 1000).toFixed(0)} s`)
}

/** `p50 …, p99 …, max … ms` of delays. */
export function delays(values: readonly number[]): string {
  if (values.length === 0) return 'none'
  return `p50 ${ms(percentile(values, 50))} ms, p99 ${ms(percentile(values, 99))} ms, max ${ms(Math.max(...values))} ms`
}

/** One line per tick, and one over them all; returns every delay. */
export function report(ticks: readonly [string, Tick][], firing: number): number[] {
  const all: number[] = []
  for (const [at, tick] of ticks) {
    const values = tick.fired.map((fired) => fired.delayMs)
    all.push(...values)
    say(`  tick ${at}: ${values.length} fired, ${tick.skipped} skipped, ${firing - values.length - tick.skipped} undecided when the wait ended; delay ${delays(values)}`)
  }
  say(`  over ${ticks.length} ticks (${all.length} tasks): ${delays(all)} (goal: p99 ≤ 2000 ms)`)
  return all
}

/** Waits until each of `rounds` ticks from `first` has a decision of each firing schedule, or 55 s after the last one. */
export async function decided(ticks: Map<string, Tick>, first: number, rounds: number, firing: number): Promise<void> {
  const deadline = first + (rounds - 1) * 60_000 + 55_000
  const complete = () => Array.from({ length: rounds }, (_, i) => ticks.get(new Date(first + i * 60_000).toISOString())).every((tick) => tick && tick.fired.length + tick.skipped >= firing)
  while (!complete() && Date.now() < deadline) await sleep(500)
}

/** The ticks of `rounds` minutes from `first`, in order. */
export function ticksFrom(ticks: Map<string, Tick>, first: number, rounds: number): [string, Tick][] {
  return [...ticks].filter(([at]) => Date.parse(at) >= first && Date.parse(at) < first + rounds * 60_000).sort(([a], [b]) => a.localeCompare(b))
}

/** The first whole minute at least `aheadMs` from now. */
export function nextMinute(aheadMs: number): number {
  return Math.ceil((Date.now() + aheadMs) / 60_000) * 60_000
}

/**
 * `npm run bench:schedules`: SCHEDULES (10,000) active schedules across ACCOUNTS (100) accounts
 * (issue 21). Every mats process is a child of this one (../capacity/service-process.ts): the
 * projector in one, the scheduler alone in another, so that its memory and CPU are its own.
 *
 *   1. Idle: the scheduler with no schedule, then with SCHEDULES schedules that are active but
 *      not due (`0 0 1 1 *`): its RSS, nats-server's messages in and out per minute (`/varz`)
 *      over IDLE_SECONDS (60), MATS_TASKS bytes per schedule created.
 *   2. Firing: FIRING of them (all by default) changed to `* * * * *`; for each of ROUNDS (2)
 *      minute ticks, the delay from `scheduledFor` to its ScheduleFired (stored with the task's
 *      TaskCreated), waiting up to 55 s past the last tick for every schedule's decision.
 *
 * PROFILE=1 writes a CPU profile of the scheduler over the measured ticks into PROFILE_DIR (/tmp).
 */
import { cpus, loadavg } from 'node:os'
import { setTimeout as sleep } from 'node:timers/promises'
import { summarizeProfiles } from '../capacity/profile.js'
import { capacityServers, natsCounters, Stoppers } from '../capacity/servers.js'
import { startMatsProcess, type MatsProcess } from '../capacity/service-process.js'
import { percentile } from '../stats.js'
import { watchFired, type Tick } from './fired-watch.js'
import { benchStore, type BenchStore } from './store.js'

const SCHEDULES = Number(process.env.SCHEDULES ?? 10_000)
const ACCOUNTS = Math.min(Number(process.env.ACCOUNTS ?? 100), SCHEDULES)
const ROUNDS = Math.max(1, Number(process.env.ROUNDS ?? 2))
/** How many of the schedules are changed to fire every minute (all by default): the idle costs at 10,000 with fewer firing, on a machine that cannot fire them all. */
const FIRING = Math.min(Number(process.env.FIRING ?? SCHEDULES), SCHEDULES)
const IDLE_SECONDS = Number(process.env.IDLE_SECONDS ?? 60)
const IDLE_CRON = '0 0 1 1 *'
const EVERY_MINUTE = '* * * * *'

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')
const say = (line: string) => process.stdout.write(`${line}\n`)
const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1)
const ms = (n: number) => n.toFixed(0)

/** The scheduler's RSS: the median of five samples a second apart. */
async function rssOf(scheduler: MatsProcess): Promise<number> {
  const samples: number[] = []
  for (let i = 0; i < 5; i++) {
    samples.push((await scheduler.stats()).rssBytes)
    await sleep(1000)
  }
  return percentile(samples, 50)
}

/** nats-server's messages (in + out) per minute over `seconds`. */
async function natsPerMinute(monitorUrl: string, seconds: number): Promise<number> {
  const before = await natsCounters(monitorUrl)
  await sleep(seconds * 1000)
  const after = await natsCounters(monitorUrl)
  return ((after.inMsgs - before.inMsgs + after.outMsgs - before.outMsgs) * 60) / seconds
}

/** nats-server's messages and the scheduler's CPU (ms), per minute over IDLE_SECONDS. */
async function idleWindow(scheduler: MatsProcess, monitorUrl: string): Promise<{ msgs: number; cpuMs: number }> {
  const cpu0 = (await scheduler.stats()).cpuMicros
  const msgs = await natsPerMinute(monitorUrl, IDLE_SECONDS)
  const cpu1 = (await scheduler.stats()).cpuMicros
  return { msgs, cpuMs: ((cpu1 - cpu0) * 60) / IDLE_SECONDS / 1000 }
}

/** Waits until nats-server carries no more than `quiet` messages in 5 s: the scheduler has loaded what it follows. */
async function settled(monitorUrl: string, quiet: number, what: string): Promise<void> {
  const started = Date.now()
  for (let rate = Number.POSITIVE_INFINITY; rate > quiet; ) rate = (await natsPerMinute(monitorUrl, 5)) / 12
  say(`  ${what} settled after ${((Date.now() - started) / 1000).toFixed(0)} s`)
}

async function idlePhase(store: BenchStore, scheduler: MatsProcess, monitorUrl: string): Promise<void> {
  const rss0 = await rssOf(scheduler)
  const { msgs: msgs0, cpuMs: cpu0 } = await idleWindow(scheduler, monitorUrl)
  const bytes0 = await store.streamBytes()
  const started = Date.now()
  await store.createSchedules(SCHEDULES, IDLE_CRON)
  const bytesPerSchedule = ((await store.streamBytes()) - bytes0) / SCHEDULES
  say(`  created ${SCHEDULES} schedules (${IDLE_CRON}) in ${((Date.now() - started) / 1000).toFixed(1)} s; load ${load()}`)
  await store.untilActive(SCHEDULES)
  await settled(monitorUrl, Math.max(20, msgs0 / 12) * 1.5, 'the scheduler following them')
  const rssN = await rssOf(scheduler)
  const { msgs: msgsN, cpuMs: cpuN } = await idleWindow(scheduler, monitorUrl)
  say(`  scheduler RSS: ${mib(rss0)} MiB with 0 schedules, ${mib(rssN)} MiB with ${SCHEDULES}: ${((rssN - rss0) / SCHEDULES).toFixed(0)} B per schedule`)
  say(
    `  NATS messages per minute (in + out, /varz over ${IDLE_SECONDS} s): ${msgs0.toFixed(0)} with 0, ${msgsN.toFixed(0)} with ${SCHEDULES} idle: ${((msgsN - msgs0) / SCHEDULES).toFixed(3)} per idle schedule per minute`,
  )
  say(`  scheduler CPU per minute: ${cpu0.toFixed(0)} ms with 0, ${cpuN.toFixed(0)} ms with ${SCHEDULES} idle (it reads nothing while no schedule changes, ADR 0053)`)
  say(`  MATS_TASKS bytes per schedule created (ScheduleCreated): ${bytesPerSchedule.toFixed(0)}`)
}

function report(ticks: [string, Tick][]): void {
  const all: number[] = []
  for (const [at, tick] of ticks) {
    all.push(...tick.delaysMs)
    say(
      `  tick ${at}: ${tick.delaysMs.length} fired, ${tick.skipped} skipped, ${FIRING - tick.delaysMs.length - tick.skipped} undecided when the wait ended; delay p50 ${ms(percentile(tick.delaysMs, 50))} ms, p99 ${ms(percentile(tick.delaysMs, 99))} ms, max ${ms(Math.max(...tick.delaysMs))} ms`,
    )
  }
  say(`  over ${ticks.length} ticks (${all.length} tasks): p50 ${ms(percentile(all, 50))} ms, p99 ${ms(percentile(all, 99))} ms, max ${ms(Math.max(...all))} ms (goal: p99 ≤ 2000 ms)`)
}

/** Waits until every measured tick has a decision of each firing schedule, or 55 s after the last one. */
async function decided(ticks: Map<string, Tick>, first: number): Promise<void> {
  const deadline = first + (ROUNDS - 1) * 60_000 + 55_000
  const complete = () => Array.from({ length: ROUNDS }, (_, i) => ticks.get(new Date(first + i * 60_000).toISOString())).every((tick) => tick && tick.delaysMs.length + tick.skipped >= FIRING)
  while (!complete() && Date.now() < deadline) await sleep(500)
}

async function firingPhase(store: BenchStore, scheduler: MatsProcess, natsUrl: string, monitorUrl: string): Promise<void> {
  const watch = await watchFired(natsUrl)
  const started = Date.now()
  await store.changeSome(FIRING, EVERY_MINUTE)
  say(`  changed ${FIRING} of the ${SCHEDULES} schedules to ${EVERY_MINUTE} in ${((Date.now() - started) / 1000).toFixed(1)} s; load ${load()}`)
  // The first tick at least 20 s away: the read model and the scheduler have learnt every change by then.
  const first = Math.ceil((Date.now() + 20_000) / 60_000) * 60_000
  await sleep(first - Date.now() - 2000)
  const bytes0 = await store.streamBytes()
  const counters0 = await natsCounters(monitorUrl)
  if (process.env.PROFILE) await scheduler.profileFrom()
  const cpu0 = (await scheduler.stats()).cpuMicros
  await decided(watch.ticks, first)
  const cpu1 = (await scheduler.stats()).cpuMicros
  if (process.env.PROFILE) {
    await scheduler.profileTo(process.env.PROFILE_DIR ?? '/tmp')
    for (const line of await summarizeProfiles(process.env.PROFILE_DIR ?? '/tmp')) say(line)
  }
  const counters1 = await natsCounters(monitorUrl)
  const bytes1 = await store.streamBytes()
  await watch.stop()
  const measured = [...watch.ticks].filter(([at]) => Date.parse(at) >= first && Date.parse(at) < first + ROUNDS * 60_000).sort(([a], [b]) => a.localeCompare(b))
  report(measured)
  const later = [...watch.ticks].filter(([at]) => Date.parse(at) >= first + ROUNDS * 60_000)
  const fired = [...watch.ticks.values()].reduce((n, tick) => n + tick.delaysMs.length, 0)
  if (later.length > 0) say(`  (and ${later.length} later tick(s) begun while waiting: their decisions are counted in the figures below)`)
  const msgs = counters1.inMsgs - counters0.inMsgs + counters1.outMsgs - counters0.outMsgs
  say(
    `  per tick fired from 2 s before the first: ${(msgs / fired).toFixed(1)} NATS messages (in + out, whole deployment: projector included), ${((bytes1 - bytes0) / fired).toFixed(0)} MATS_TASKS bytes`,
  )
  say(`  scheduler CPU from 2 s before the first tick to the last decision: ${((cpu1 - cpu0) / 1000).toFixed(0)} ms, ${((cpu1 - cpu0) / fired).toFixed(0)} µs per tick fired`)
}

const stoppers = new Stoppers()
try {
  say(`mats schedules benchmark, ${new Date().toISOString()}, ${cpus()[0]?.model ?? 'cpu'} × ${cpus().length}, Node ${process.version}, load ${load()}`)
  say(`  ${SCHEDULES} schedules across ${ACCOUNTS} accounts, ${FIRING} of them firing, ${ROUNDS} ticks measured`)
  const servers = stoppers.add(await capacityServers())
  const env = { NATS_URL: servers.natsUrl, MONGODB_URL: servers.mongoUrl, SCHEDULES_PER_ACCOUNT: '100000' }
  stoppers.add(await startMatsProcess({ roles: ['projector'], env }))
  const scheduler = stoppers.add(await startMatsProcess({ roles: ['scheduler'], env }))
  const store = stoppers.add(await benchStore(servers.natsUrl, servers.mongoUrl, ACCOUNTS))
  await sleep(5000)
  say('idle schedules:')
  await idlePhase(store, scheduler, servers.monitorUrl)
  say('every-minute schedules:')
  await firingPhase(store, scheduler, servers.natsUrl, servers.monitorUrl)
  say(`  (done at ${new Date().toISOString()}, load ${load()})`)
} finally {
  await stoppers.stopAll()
}

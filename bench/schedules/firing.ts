/**
 * The firing phase: FIRING schedules changed to fire every minute, then, for each count of
 * SCHEDULERS in turn (1, 2, 3 by default), that many scheduler processes sharing the
 * partitions (ADR 0047), and ROUNDS ticks measured: the delay from `scheduledFor` to the task
 * created, the schedulers' CPU and NATS messages per tick. Last, one scheduler killed
 * (SIGKILL) KILL_BEFORE_MS before a tick: how late that tick (and the next ROUNDS - 1) are, for
 * the killed one's accounts and for the others'.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { partitionOf } from '../../projections/index.js'
import { summarizeProfiles } from '../capacity/profile.js'
import { percentile } from '../stats.js'
import { natsCounters, type CapacityServers } from '../capacity/servers.js'
import { watchFired, type FiredWatch } from './fired-watch.js'
import { decided, delays, load, nextMinute, report, say, settled, ticksFrom } from './measure.js'
import { leaseHolders, natsMessagesOf, untilBalanced, type SchedulerPool } from './schedulers.js'
import type { BenchStore } from './store.js'
import { GUARD_KINDS, type GuardKind, type TickFloor } from './tick-floor.js'

export const EVERY_MINUTE = '* * * * *'
/** How long the schedulers are given to load what they follow before the next measured tick. */
const SETTLE_MS = 60_000

export interface FiringOptions {
  readonly firing: number
  readonly rounds: number
  /** Scheduler counts measured in turn, ascending. */
  readonly schedulers: readonly number[]
  /** A scheduler is killed this long before a tick (null: not). */
  readonly killBeforeMs: number | null
  /** The read models' database: it scopes the scheduler leases. */
  readonly database: string
}

interface Rig {
  readonly options: FiringOptions
  readonly servers: Pick<CapacityServers, 'natsUrl' | 'monitorUrl'>
  readonly pool: SchedulerPool
  readonly watch: FiredWatch
  /** nats-server's messages per 5 s below which the schedulers are taken to have loaded what they follow. */
  readonly quiet: number
  /** Measured before each count's ticks, on the same nats-server (null: not). */
  readonly floor: TickFloor | null
}

export async function firingPhase(options: FiringOptions, store: BenchStore, parts: Pick<Rig, 'pool' | 'servers' | 'floor'>, quietPerMinute: number): Promise<void> {
  const { pool, servers, floor } = parts
  const watch = await watchFired(servers.natsUrl)
  const rig: Rig = { options, servers, pool, watch, floor, quiet: Math.max(20, quietPerMinute / 12) * 1.5 }
  try {
    const started = Date.now()
    await store.changeSome(options.firing, EVERY_MINUTE)
    say(`  changed ${options.firing} of the schedules to ${EVERY_MINUTE} in ${((Date.now() - started) / 1000).toFixed(1)} s; load ${load()}`)
    for (const count of options.schedulers) await measureWith(rig, count)
    if (options.killBeforeMs !== null && pool.live.length >= 2) await measureKill(rig, options.killBeforeMs)
  } finally {
    await watch.stop()
  }
}

async function measureWith(rig: Rig, count: number): Promise<void> {
  const { options, servers, pool, watch } = rig
  await pool.grow(count)
  const holders = await untilBalanced(servers.natsUrl, options.database, pool)
  say(`${count} scheduler(s), partitions by pid: ${describe(holders)}`)
  await settled(servers.monitorUrl, rig.quiet, `the ${count} scheduler(s) following their schedules`, SETTLE_MS)
  const floorDelays = rig.floor ? await floorTick(rig.floor) : null
  // The first tick at least 20 s away: the read model and the schedulers have learnt every change by then.
  const first = nextMinute(20_000)
  await sleep(first - Date.now() - 2000)
  const pids = pool.live.map((scheduler) => scheduler.pid)
  const [counters0, own0, cpu0] = await Promise.all([natsCounters(servers.monitorUrl), natsMessagesOf(servers.monitorUrl, pids), pool.cpuMicros()])
  const profiled = process.env.PROFILE ? pool.live[0] : undefined
  await profiled?.profileFrom()
  await decided(watch.ticks, first, options.rounds, options.firing)
  const [counters1, own1, cpu1] = await Promise.all([natsCounters(servers.monitorUrl), natsMessagesOf(servers.monitorUrl, pids), pool.cpuMicros()])
  if (profiled) {
    await profiled.profileTo(process.env.PROFILE_DIR ?? '/tmp')
    for (const line of await summarizeProfiles(process.env.PROFILE_DIR ?? '/tmp')) say(line)
  }
  const measured = report(ticksFrom(watch.ticks, first, options.rounds), options.firing)
  if (floorDelays) say(`  p99 against the JetStream floor's (aggregate guards): ${(percentile(measured, 99) / percentile(floorDelays, 99)).toFixed(2)}`)
  // Every decision from 2 s before the first tick on, later ticks begun while waiting included.
  const fired = [...watch.ticks].filter(([at]) => Date.parse(at) >= first).reduce((n, [, tick]) => n + tick.fired.length, 0)
  const whole = counters1.inMsgs - counters0.inMsgs + counters1.outMsgs - counters0.outMsgs
  say(
    `  per tick fired (${fired} from 2 s before the first): ${(whole / fired).toFixed(1)} NATS messages whole deployment (projector included), ${((own1 - own0) / fired).toFixed(1)} of them the schedulers' own (/connz, in + out)`,
  )
  say(`  schedulers' CPU from 2 s before the first tick to the last decision: ${((cpu1 - cpu0) / 1000).toFixed(0)} ms, ${((cpu1 - cpu0) / fired).toFixed(0)} µs per tick fired; load ${load()}`)
}

/** One scheduler SIGKILLed `beforeMs` before a tick: its partitions are taken over once their leases expire (SCHEDULER_LEASE_MS). */
async function measureKill(rig: Rig, beforeMs: number): Promise<void> {
  const { options, servers, pool, watch } = rig
  const victim = pool.live.at(-1)!
  const tick = nextMinute(20_000)
  await sleep(tick - beforeMs - 500 - Date.now())
  const holders = await leaseHolders(servers.natsUrl, options.database)
  const lost = new Set([...holders].filter(([, pid]) => pid === victim.pid).map(([partition]) => partition))
  await sleep(tick - beforeMs - Date.now())
  pool.kill(victim)
  say(`one of ${pool.live.length + 1} schedulers (pid ${victim.pid}, partitions ${[...lost].join(' ')}) SIGKILLed ${beforeMs} ms before the tick ${new Date(tick).toISOString()}:`)
  await decided(watch.ticks, tick, options.rounds, options.firing)
  for (const [at, { fired, skipped }] of ticksFrom(watch.ticks, tick, options.rounds)) {
    const ofLost = fired.filter(({ accountId }) => lost.has(partitionOf(accountId))).map(({ delayMs }) => delayMs)
    const ofOthers = fired.filter(({ accountId }) => !lost.has(partitionOf(accountId))).map(({ delayMs }) => delayMs)
    const late = [...ofLost, ...ofOthers].filter((delay) => delay > 2000).length
    say(
      `  tick ${at}: the killed one's accounts ${ofLost.length} fired, ${delays(ofLost)}; the others' ${ofOthers.length} fired, ${delays(ofOthers)}; ${late} later than 2 s; ${options.firing - fired.length - skipped} undecided`,
    )
  }
}

/** FLOOR_GUARDS (`aggregate,subject` by default): the kinds of guard the floor is measured with. */
function floorGuards(): GuardKind[] {
  const kinds = (process.env.FLOOR_GUARDS ?? 'aggregate,subject').split(',')
  const known = kinds.filter((kind): kind is GuardKind => GUARD_KINDS.some((k) => k === kind))
  if (known.length !== kinds.length) throw new Error(`FLOOR_GUARDS: each of ${GUARD_KINDS.join(', ')}, not ${kinds.join(',')}`)
  return known
}

/** One tick of the floor with each kind of guard; returns the delays with mats' own (aggregate). */
export async function floorTick(floor: TickFloor): Promise<number[]> {
  let aggregate: number[] = []
  for (const guard of floorGuards()) {
    const values = await floor.tick(guard)
    say(`  the JetStream floor, ${guard} guards: ${values.length} pairs, ${delays(values)}; load ${load()}`)
    if (guard === 'aggregate') aggregate = values
  }
  return aggregate
}

function describe(holders: ReadonlyMap<number, number>): string {
  const byPid = new Map<number, number[]>()
  for (const [partition, pid] of holders) byPid.set(pid, [...(byPid.get(pid) ?? []), partition])
  return [...byPid].map(([pid, partitions]) => `${pid}: ${partitions.sort((a, b) => a - b).join(' ')}`).join('; ')
}

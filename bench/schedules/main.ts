/**
 * `npm run bench:schedules`: SCHEDULES (10,000) active schedules across ACCOUNTS (100) accounts
 * (issue 21). Every mats process is a child of this one (../capacity/service-process.ts): the
 * projector in one, each scheduler alone in another, so that its memory and CPU are its own.
 *
 *   1. Idle (idle.ts): one scheduler; the schedules created in steps (RSS_AT, by default
 *      1/10, 1/2 and all of SCHEDULES), active but not due: its RSS at each step and the slope
 *      per schedule, nats-server's messages per minute (`/varz`) over IDLE_SECONDS (60) with
 *      none and all, MATS_TASKS bytes per schedule created.
 *   2. Firing (firing.ts): FIRING of them (all by default) changed to `* * * * *`; with each
 *      count of SCHEDULERS (`1,2,3`) scheduler processes in turn, ROUNDS (2) minute ticks: the
 *      delay from `scheduledFor` to its ScheduleFired (stored with the task's TaskCreated),
 *      waiting up to 55 s past the last tick for every schedule's decision; then (KILL_BEFORE_MS,
 *      1000; `none` to skip) one scheduler SIGKILLed that long before a tick, and how late that
 *      tick (and the next ROUNDS - 1) are.
 *   0. The floor (tick-floor.ts, before each count's ticks): the same pairs on JetStream alone,
 *      in the same atomic batches, from a clean stream holding as many schedules. PHASES=floor
 *      measures it alone, ROUNDS times; PHASES=idle,firing leaves it out.
 *
 * PROFILE=1 writes a CPU profile of the first scheduler over each count's ticks into PROFILE_DIR (/tmp).
 */
import { cpus } from 'node:os'
import { capacityServers, Stoppers, type CapacityServers } from '../capacity/servers.js'
import { startMatsProcess } from '../capacity/service-process.js'
import { firingPhase, floorTick } from './firing.js'
import { idlePhase } from './idle.js'
import { load, say } from './measure.js'
import { SchedulerPool } from './schedulers.js'
import { benchStore } from './store.js'
import { tickFloor, type TickFloor } from './tick-floor.js'

const SCHEDULES = Number(process.env.SCHEDULES ?? 10_000)
const ACCOUNTS = Math.min(Number(process.env.ACCOUNTS ?? 100), SCHEDULES)
const ROUNDS = Math.max(1, Number(process.env.ROUNDS ?? 2))
/** How many of the schedules are changed to fire every minute (all by default). */
const FIRING = Math.min(Number(process.env.FIRING ?? SCHEDULES), SCHEDULES)
const IDLE_SECONDS = Number(process.env.IDLE_SECONDS ?? 60)
const counts = (text: string) => [...new Set(text.split(',').map(Number))].filter((n) => Number.isInteger(n) && n > 0).sort((a, b) => a - b)
const RSS_AT = counts(process.env.RSS_AT ?? `${Math.round(SCHEDULES / 10)},${Math.round(SCHEDULES / 2)},${SCHEDULES}`).filter((n) => n < SCHEDULES)
const SCHEDULERS = counts(process.env.SCHEDULERS ?? '1,2,3')
const PHASES = new Set((process.env.PHASES ?? 'floor,idle,firing').split(','))
const KILL_BEFORE_MS = process.env.KILL_BEFORE_MS === 'none' ? null : Number(process.env.KILL_BEFORE_MS ?? 1000)
/** The read models' database (capacityServers'). */
const DATABASE = 'mats'

const stoppers = new Stoppers()

/** The idle and the firing phases: a projector, the schedulers, the schedules. */
async function withSchedulers(servers: CapacityServers, floor: TickFloor | null): Promise<void> {
  const env = { NATS_URL: servers.natsUrl, MONGODB_URL: servers.mongoUrl, SCHEDULES_PER_ACCOUNT: '100000' }
  stoppers.add(await startMatsProcess({ roles: ['projector'], env }))
  const pool = stoppers.add(new SchedulerPool(env))
  await pool.grow(1)
  const store = stoppers.add(await benchStore(servers.natsUrl, servers.mongoUrl, ACCOUNTS))
  say('idle schedules:')
  const idleMsgs = await idlePhase({ schedules: SCHEDULES, rssAt: [...RSS_AT, SCHEDULES], idleSeconds: IDLE_SECONDS }, store, pool.live[0]!, servers.monitorUrl)
  say('every-minute schedules:')
  const options = { firing: FIRING, rounds: ROUNDS, schedulers: SCHEDULERS, killBeforeMs: KILL_BEFORE_MS, database: DATABASE }
  await firingPhase(options, store, { pool, servers, floor }, idleMsgs)
}

try {
  say(`mats schedules benchmark, ${new Date().toISOString()}, ${cpus()[0]?.model ?? 'cpu'} × ${cpus().length}, Node ${process.version}, load ${load()}`)
  say(`  ${SCHEDULES} schedules across ${ACCOUNTS} accounts, ${FIRING} of them firing, ${ROUNDS} ticks measured with ${SCHEDULERS.join(', ')} scheduler(s)`)
  const servers = stoppers.add(await capacityServers())
  const floor = PHASES.has('floor') ? stoppers.add(await tickFloor(servers.natsUrl, FIRING, ACCOUNTS)) : null
  if (floor && !PHASES.has('firing')) for (let round = 1; round <= ROUNDS; round++) await floorTick(floor)
  else await withSchedulers(servers, floor)
  say(`  (done at ${new Date().toISOString()}, load ${load()})`)
} finally {
  await stoppers.stopAll()
}

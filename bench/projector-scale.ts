/**
 * What N projector processes give: STORED tasks of many accounts put straight in the log, then
 * projected from nothing into a fresh database by 1, 2, … `mats start --role projector` processes
 * (COUNTS), in interleaved rounds; the time from their start until every projection's checkpoint
 * has reached its stream's head, as events per second. Leases are per database, so each run
 * shares the partitions among its own processes only (ADR 0018).
 *
 *   npm run bench:projectors     STORED=20000 ROUNDS=3 COUNTS=1,2,4
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { resolve } from 'node:path'
import { MongoClient } from 'mongodb'
import { ALL_PROJECTIONS, ReadModels } from '../projections/index.js'
import { benchServers, benchService } from './harness.js'
import { otherDatabase } from '../test/helpers/servers.js'
import { seedTasks } from './seed.js'
import { show, spread } from './stats.js'
import { benchNodeFlags } from './node-flags.js'

const STORED = Number(process.env.STORED ?? 20_000)
const ROUNDS = Number(process.env.ROUNDS ?? 3)
const COUNTS = (process.env.COUNTS ?? '1,2,4').split(',').map(Number)
const PER_ACCOUNT = 100
const MATS = resolve(import.meta.dirname, '../bin/mats.js')
const say = (line: string) => process.stdout.write(`${line}\n`)

const servers = await benchServers()
const writer = await benchService(servers.natsUrl, servers.mongoUrl, { RATE_LIMITS_ENABLED: 'false' }, ['api'])
const mongo = await new MongoClient(servers.mongoUrl).connect()

function projector(database: string): ChildProcess {
  const env = { ...process.env, NATS_URL: servers.natsUrl, MONGODB_URL: otherDatabase(servers, database), LOG_LEVEL: 'warn' }
  return spawn(process.execPath, [...benchNodeFlags(), MATS, 'start', '--role', 'projector'], { env, stdio: ['ignore', 'ignore', 'inherit'] })
}

function stopped(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  const exit = new Promise<void>((done) => child.once('exit', () => done()))
  child.kill('SIGTERM')
  return exit
}

/** Seconds from starting `count` projectors on an empty database until every projection has applied its stream. */
async function project(count: number, database: string, heads: Map<string, number>): Promise<number> {
  const started = performance.now()
  const children = Array.from({ length: count }, () => projector(database))
  const readModels = new ReadModels(mongo.db(database), ALL_PROJECTIONS)
  try {
    for (;;) {
      const behind = await Promise.all(ALL_PROJECTIONS.map(async (p) => (await readModels.checkpoint(p, 1)) < (heads.get(p.stream) ?? 0)))
      if (!behind.includes(true)) return (performance.now() - started) / 1000
      if (children.some((child) => child.exitCode !== null)) throw new Error(`a projector exited (${database})`)
      if (performance.now() - started > 600_000) throw new Error(`not caught up in 10 minutes (${database})`)
      await new Promise((r) => setTimeout(r, 100))
    }
  } finally {
    await Promise.all(children.map(stopped))
  }
}

try {
  for (let n = 0; n < STORED; n += PER_ACCOUNT) await seedTasks(writer.infra, randomUUID(), Math.min(PER_ACCOUNT, STORED - n))
  const heads = new Map<string, number>()
  for (const stream of new Set(ALL_PROJECTIONS.map((p) => p.stream))) heads.set(stream, (await writer.infra.jsm.streams.info(stream)).state.last_seq)
  const events = [...heads.values()].reduce((a, b) => a + b, 0)
  say(`mats projector scale-out, ${new Date().toISOString()}, Node ${process.version}`)
  say(`${STORED.toLocaleString('en-US')} tasks of ${Math.ceil(STORED / PER_ACCOUNT)} accounts, ${events.toLocaleString('en-US')} events in ${heads.size} streams, projected into an empty database`)
  const rates = new Map<number, number[]>(COUNTS.map((c) => [c, []]))
  for (let round = 1; round <= ROUNDS; round++) {
    for (const count of COUNTS) {
      const seconds = await project(count, `scale_${round}_${count}`, heads)
      rates.get(count)!.push(events / seconds)
      say(`  round ${round}: ${count} projector(s) ${seconds.toFixed(1)} s, ${(events / seconds).toFixed(0)} events/s`)
    }
  }
  const one = spread(rates.get(COUNTS[0]!)!)
  for (const count of COUNTS) {
    const s = spread(rates.get(count)!)
    say(`${count} projector(s): ${show(s)} events/s, ${(s.median / one.median).toFixed(2)} × ${COUNTS[0]}`)
  }
} finally {
  await mongo.close()
  await writer.stop()
  await servers.stop()
}

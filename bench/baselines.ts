/**
 * What each mats figure is a ratio to: the primitives it is built on, measured in the same
 * run against the same servers (JetStream publish, MongoDB insertMany and findOne) and the
 * usual job queue for Node (BullMQ on Redis).
 */
import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { connect } from '@nats-io/transport-node'
import { jetstream, jetstreamManager, StorageType } from '@nats-io/jetstream'
import { Queue, QueueEvents, Worker } from 'bullmq'
import { Redis } from 'ioredis'
import Fastify from 'fastify'
import { MongoClient, type Document, type IndexDescription } from 'mongodb'
import { freePort, isListening } from '../src/infra/local/servers.js'

const ENVELOPE = JSON.stringify({
  id: randomUUID(),
  type: 'TaskCreated',
  version: 1,
  occurredAt: new Date().toISOString(),
  accountId: randomUUID(),
  aggregateId: randomUUID(),
  data: {
    sessionId: randomUUID(),
    agentType: 'seo',
    taskType: 'instruction',
    instruction: 'Plan the launch posts for the spring collection',
    title: null,
    priority: 'normal',
    fingerprint: 'f'.repeat(64),
    parentTaskId: null,
    billingMonth: '2026-11',
    reservedMicros: 10000,
  },
  metadata: { correlationId: randomUUID(), causationId: null, keyId: randomUUID() },
})

/** Publishes with acknowledgement, `inFlight` at a time, to a stream of its own on the server: messages per second. */
export async function rawPublishRate(natsUrl: string, seconds: number, inFlight: number): Promise<number> {
  const nc = await connect({ servers: natsUrl })
  const jsm = await jetstreamManager(nc)
  const js = jetstream(nc)
  await jsm.streams.add({ name: 'BENCH_RAW', subjects: ['bench.raw.>'], storage: StorageType.File }).catch(() => undefined)
  const until = Date.now() + seconds * 1000
  let published = 0
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (Date.now() < until) {
        await js.publish(`bench.raw.${randomUUID()}`, ENVELOPE, { msgID: randomUUID() })
        published++
      }
    }),
  )
  await jsm.streams.purge('BENCH_RAW')
  await nc.close()
  return published / seconds
}

export interface Burst {
  /** Jobs per second, from the first add to the last completion seen. */
  readonly rate: number
  /** Milliseconds from add to completion seen, per job. */
  readonly latencies: number[]
}

/** `jobs` no-op jobs added `inFlight` at a time, run by one BullMQ worker at `concurrency`. */
export async function bullmqBurst(redisUrl: string, jobs: number, inFlight: number, concurrency: number): Promise<Burst> {
  // BullMQ's documented setup: one connection each, blocking ones without a retry limit.
  const connect = () => new Redis(redisUrl, { maxRetriesPerRequest: null })
  const connections = [connect(), connect(), connect()] as const
  const name = `bench-${randomUUID()}`
  const queue = new Queue(name, { connection: connections[0] })
  const events = new QueueEvents(name, { connection: connections[1] })
  const worker = new Worker(name, async () => ({}), { connection: connections[2], concurrency })
  await Promise.all([events.waitUntilReady(), worker.waitUntilReady()])
  const added = new Map<string, number>()
  const latencies: number[] = []
  const allDone = new Promise<void>((resolve) => {
    events.on('completed', ({ jobId }) => {
      const at = added.get(jobId)
      if (at !== undefined) latencies.push(Date.now() - at)
      if (latencies.length === jobs) resolve()
    })
  })
  const started = Date.now()
  let next = 0
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      for (let i = next++; i < jobs; i = next++) {
        const id = randomUUID()
        added.set(id, Date.now())
        await queue.add('noop', { i }, { jobId: id, removeOnComplete: true })
      }
    }),
  )
  await allDone
  const rate = jobs / ((Date.now() - started) / 1000)
  await Promise.all([worker.close(), events.close(), queue.obliterate({ force: true }).then(() => queue.close())])
  for (const connection of connections) connection.disconnect()
  return { rate, latencies }
}

/** Debian's redis-server on a random loopback port, without persistence. */
export async function startRedis(): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await freePort()
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' })
  child.on('error', (err) => process.stderr.write(`redis-server: ${err.message} (apt-get install redis-server)\n`))
  const deadline = Date.now() + 10_000
  while (!(await isListening('127.0.0.1', port))) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error('redis-server did not start: apt-get install redis-server')
    await new Promise((r) => setTimeout(r, 50))
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: () =>
      new Promise((done) => {
        child.once('exit', () => done())
        child.kill('SIGTERM')
      }),
  }
}

/** Documents to insert into a collection of their own, with the indexes it is created with. */
export interface InsertGroup {
  readonly indexes: readonly IndexDescription[]
  readonly docs: readonly Document[]
}

/**
 * Seconds for unordered insertMany calls (chunks of 500) of each group's documents into a
 * fresh collection created with its indexes beforehand, one writer per collection at once.
 * With the read models' indexes this is what storing the final read models costs; with none
 * and one group, the bare insert.
 */
export async function insertManySeconds(mongoUrl: string, groups: readonly InsertGroup[]): Promise<number> {
  const client = await new MongoClient(mongoUrl).connect()
  const collections = await Promise.all(
    groups.map(async ({ indexes }) => {
      const collection = client.db().collection(`bench_insert_${randomUUID().slice(0, 8)}`)
      for (const { key, ...options } of indexes) await collection.createIndex(key, options)
      return collection
    }),
  )
  const started = performance.now()
  await Promise.all(
    groups.map(async ({ docs }, g) => {
      for (let i = 0; i < docs.length; i += 500)
        await collections[g]!.insertMany(
          docs.slice(i, i + 500).map((d) => ({ ...d })),
          { ordered: false },
        )
    }),
  )
  const seconds = (performance.now() - started) / 1000
  for (const collection of collections) await collection.drop()
  await client.close()
  return seconds
}

/** A bare fastify route doing the same findOne the GET endpoint does: the floor of what it could cost. */
export async function bareFindOne(mongoUrl: string, collectionName: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const client = await new MongoClient(mongoUrl).connect()
  const collection = client.db().collection<{ _id: string }>(collectionName)
  const app = Fastify()
  app.get<{ Params: { id: string } }>('/tasks/:id', async (request) => ({ task: await collection.findOne({ _id: request.params.id }) }))
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  return {
    url,
    stop: async () => {
      await app.close()
      await client.close()
    },
  }
}

import { connect, type NatsConnection } from '@nats-io/transport-node'
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream'
import { MongoClient, type Db } from 'mongodb'
import type { Logger } from 'pino'
import type { Config } from '../config.js'
import { natsConnectionOptions } from './nats/connection-options.js'
import { letResolvedRequestsGo } from './nats/resolved-requests.js'
import { MatsMetrics } from './metrics/mats-metrics.js'
import { EventStore } from './nats/event-store.js'
import { NatsLink } from './nats/link.js'
import { PendingTasks } from './nats/pending-tasks.js'
import { ensureStreams } from './nats/streams.js'

const DRAIN_TIMEOUT_MS = 3000

/**
 * The connections every role shares; one per process, closed once. Connections only: the
 * caches, views and read models built on them are put together at the composition root
 * (src/app-context.ts) and handed to what needs them.
 */
export interface Infra {
  readonly config: Config
  readonly log: Logger
  readonly nc: NatsConnection
  /** Whether NATS is reachable now: requests fail fast while it is not. */
  readonly link: NatsLink
  readonly js: JetStreamClient
  readonly jsm: JetStreamManager
  readonly events: EventStore
  readonly mongo: MongoClient
  readonly db: Db
  readonly pendingTasks: PendingTasks
  readonly clock: () => Date
  /** What this process measures (GET /metrics). */
  readonly metrics: MatsMetrics
  close(): Promise<void>
}

export async function connectInfra(config: Config, log: Logger): Promise<Infra> {
  const nc = await connect(natsConnectionOptions(config))
  if (!letResolvedRequestsGo(nc)) log.warn("nats.js' connection is not of the @nats-io/nats-core copy mats patches: every resolved request makes an error again (two copies installed?)")
  const mongo = new MongoClient(config.MONGODB_URL, { appName: 'mats', serverSelectionTimeoutMS: config.MONGODB_TIMEOUT_MS, connectTimeoutMS: config.MONGODB_TIMEOUT_MS })
  try {
    // Every request gets an answer within the timeout, if only a 503 (invariant 11).
    const js = jetstream(nc, { timeout: config.NATS_TIMEOUT_MS })
    const jsm = await jetstreamManager(nc, { timeout: config.NATS_TIMEOUT_MS })
    await ensureStreams(jsm, { replicas: config.NATS_STREAM_REPLICAS })
    await mongo.connect()
    const db = mongo.db()
    const pendingTasks = await PendingTasks.open(nc, js, config.NATS_STREAM_REPLICAS)
    log.debug({ nats: nc.getServer(), db: db.databaseName }, 'connected')
    const metrics = new MatsMetrics()
    const events = new EventStore(nc, js, jsm, { batchesPerStream: config.NATS_BATCHES_PER_STREAM, observer: metrics })
    return {
      config,
      log,
      nc,
      link: new NatsLink(nc),
      js,
      jsm,
      mongo,
      db,
      pendingTasks,
      events,
      clock: () => new Date(),
      metrics,
      async close() {
        // Draining needs the server: with NATS gone it would wait forever.
        const drained = nc.drain().catch(() => undefined)
        await Promise.race([drained, new Promise((r) => setTimeout(r, DRAIN_TIMEOUT_MS).unref())])
        if (!nc.isClosed()) await nc.close()
        await mongo.close()
      },
    }
  } catch (err) {
    await nc.close().catch(() => undefined)
    await mongo.close().catch(() => undefined)
    throw err
  }
}

import { randomUUID } from 'node:crypto'
import type { Logger } from 'pino'
import type { AppContext } from '../../src/app-context.js'
import { SecretBox } from '../../src/infra/crypto/secret-box.js'
import { PoisonMessages } from '../../src/infra/mongo/poison-messages.js'
import { openBucket } from '../../src/infra/nats/buckets.js'
import { FanOutCursors } from '../../src/infra/nats/fan-out-cursors.js'
import { LogReader, type Read } from '../../src/infra/nats/log-reader.js'
import { streamOf, SUBJECT_ROOT } from '../../src/infra/nats/subjects.js'
import { WebhookAttempts } from '../../src/infra/nats/webhook-attempts.js'
import { WebhookEndpoints } from '../../src/infra/nats/webhook-endpoints.js'
import { WebhookLeases } from '../../src/infra/nats/webhook-leases.js'
import { WebhookQueue } from '../../src/infra/nats/webhook-queue.js'
import { ensureWebhookStreams, JOBS_STREAM, LEGACY_DELIVERY_CONSUMER, LEGACY_FAN_OUT_CONSUMER } from '../../src/infra/nats/webhook-streams.js'
import { Deliverer } from './deliverer.js'
import { fanOutEvents } from './fan-out.js'
import { FanOutLanes } from './fan-out-lanes.js'
import { decodeJob } from './job.js'
import { DeliveryScheduler } from './scheduler.js'
import { Slots } from './slots.js'

const TALLIES_BUCKET = 'mats_webhook_attempts'
const DAY_MS = 86_400_000
/** A lease outlives its attempt's time limit by this much before it counts no more (its process died mid-attempt). */
const LEASE_MARGIN_MS = 5000
/** Accounts fanned out at once in a process: more only add contention (each page is hundreds of publishes). */
const FAN_OUT_AT_ONCE = 4
const TASKS_STREAM = streamOf('task')

/**
 * The `webhooks` role: the fan-out (task events to delivery jobs, each account's events read
 * from its own cursor, accounts taken in turn) and the deliverer (jobs to signed POSTs, with
 * retries, each account's queue taken in turn), shared by every process that runs the role.
 * See docs/webhooks.md, ADR 0025, ADR 0027 (caps and pauses), ADR 0033 (queues per account)
 * and ADR 0042 (fan-out per account).
 */
export class WebhookService {
  private constructor(
    private readonly infra: AppContext,
    private readonly fanOut: FanOutLanes,
    private readonly scheduler: DeliveryScheduler,
    private readonly log: Logger,
    /** Said when the loops start. */
    private readonly settings: Record<string, unknown>,
  ) {}

  /**
   * Creates what the role needs (streams, consumers, buckets) and takes no message yet:
   * `start` does, once every other part of the process is up too.
   */
  static async prepare(infra: AppContext): Promise<WebhookService> {
    const { config, jsm, js } = infra
    const box = SecretBox.fromConfig(config)
    if (!box) throw new Error('the webhooks role needs WEBHOOKS_SECRET_KEY (docs/configuration.md)')
    const log = infra.log.child({ role: 'webhooks' })
    await ensureWebhookStreams(jsm, { replicas: config.NATS_STREAM_REPLICAS, retryWindowMs: config.WEBHOOKS_RETRY_WINDOW_MS })
    // Jobs are read per webhook now (ADR 0033); the one consumer that handed out every account's jobs in arrival order goes.
    await jsm.consumers.delete(JOBS_STREAM, LEGACY_DELIVERY_CONSUMER).catch(() => undefined)
    const queue = await WebhookQueue.open(infra, { replicas: config.NATS_STREAM_REPLICAS })
    await queue.reconcile((data) => decodeJob(data).accountId)
    const cursors = await FanOutCursors.open(js, { replicas: config.NATS_STREAM_REPLICAS })
    const started = await cursors.reconcile(jsm, LEGACY_FAN_OUT_CONSUMER)
    if (started > 0) log.info({ accounts: started }, 'webhooks fan-out: accounts with webhooks but no cursor given one (ADR 0042)')
    const tallies = await openBucket(js, TALLIES_BUCKET, { replicas: config.NATS_STREAM_REPLICAS, ttl: config.WEBHOOKS_RETRY_WINDOW_MS + DAY_MS })
    const caps = { perAccount: config.WEBHOOKS_MAX_IN_FLIGHT_PER_ACCOUNT, perWebhook: config.WEBHOOKS_MAX_IN_FLIGHT_PER_WEBHOOK }
    const leases = await WebhookLeases.open(js, { replicas: config.NATS_STREAM_REPLICAS, caps, holdMs: config.WEBHOOKS_TIMEOUT_MS + LEASE_MARGIN_MS })
    const endpoints = await WebhookEndpoints.open(js, { replicas: config.NATS_STREAM_REPLICAS })
    const poison = new PoisonMessages(infra.db, log)
    const deliverer = new Deliverer(
      { readModels: infra.readModels, box, tallies, attempts: new WebhookAttempts(infra), leases, endpoints, queue, poison, log },
      {
        retry: { baseMs: config.WEBHOOKS_RETRY_BASE_MS, maxMs: config.WEBHOOKS_RETRY_MAX_DELAY_MS, windowMs: config.WEBHOOKS_RETRY_WINDOW_MS },
        pause: { afterTimeouts: config.WEBHOOKS_PAUSE_AFTER_TIMEOUTS, firstPauseMs: config.WEBHOOKS_PAUSE_MS, maxPauseMs: Math.max(config.WEBHOOKS_PAUSE_MS, config.WEBHOOKS_RETRY_MAX_DELAY_MS) },
        attempt: { timeoutMs: config.WEBHOOKS_TIMEOUT_MS, allowPrivate: config.WEBHOOKS_ALLOW_PRIVATE_URLS },
      },
    )
    // Half the slots at most for retries: first attempts always find room (ADR 0027).
    const slots = new Slots(config.WEBHOOKS_CONCURRENCY, Math.max(1, Math.floor(config.WEBHOOKS_CONCURRENCY / 2)))
    const reader = new LogReader(infra)
    const fanOut = new FanOutLanes(
      cursors,
      {
        read: (accountId, fromSeq, max, atLeast) => readAccountPage(reader, accountId, fromSeq, max, atLeast),
        fanOut: (accountId, events) => fanOutEvents(infra, queue, accountId, events),
        slots: new Slots(FAN_OUT_AT_ONCE, FAN_OUT_AT_ONCE),
        poison,
        holder: randomUUID(),
        log,
      },
      log,
    )
    return new WebhookService(infra, fanOut, new DeliveryScheduler(queue, deliverer, slots, log), log, { concurrency: config.WEBHOOKS_CONCURRENCY, caps })
  }

  async start(): Promise<void> {
    await this.fanOut.start(this.infra)
    await this.scheduler.start()
    this.log.info(this.settings, 'webhooks started')
  }

  async stop(): Promise<void> {
    await Promise.all([this.fanOut.stop(), this.scheduler.stop()])
    this.log.info('webhooks stopped')
  }
}

/**
 * A page of the account's events on the task stream (tasks, their actions' decisions), by
 * direct gets; one that falls short of an event the doorbell announced asks the stream leader
 * (a replica may lag, invariant 10).
 */
async function readAccountPage(reader: LogReader, accountId: string, fromSeq: number, max: number, atLeast: number): Promise<Read> {
  const filter = `${SUBJECT_ROOT}.*.${accountId}.>`
  const page = await reader.readPage(TASKS_STREAM, filter, fromSeq, max)
  return page.lastSeq >= atLeast || page.lastSeq > 0 ? page : reader.read(TASKS_STREAM, filter, fromSeq, atLeast)
}

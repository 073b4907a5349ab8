import { AckPolicy, DeliverPolicy } from '@nats-io/jetstream'
import type { Logger } from 'pino'
import type { AppContext } from '../../src/app-context.js'
import { SecretBox } from '../../src/infra/crypto/secret-box.js'
import { PoisonMessages } from '../../src/infra/mongo/poison-messages.js'
import { HandlingFailures } from '../../src/infra/nats/failed-messages.js'
import { openBucket } from '../../src/infra/nats/buckets.js'
import { WebhookAttempts } from '../../src/infra/nats/webhook-attempts.js'
import { WebhookEndpoints } from '../../src/infra/nats/webhook-endpoints.js'
import { WebhookLeases } from '../../src/infra/nats/webhook-leases.js'
import { DELIVERY_CONSUMER, ensureWebhookStreams, FAN_OUT_CONSUMER, JOBS_STREAM } from '../../src/infra/nats/webhook-streams.js'
import { Deliverer } from './deliverer.js'
import { fanOut } from './fan-out.js'
import { PullLoop } from './pull-loop.js'

const NANOS_PER_MS = 1_000_000
const TALLIES_BUCKET = 'mats_webhook_attempts'
const DAY_MS = 86_400_000
/** A lease outlives its attempt's time limit by this much before it counts no more (its process died mid-attempt). */
const LEASE_MARGIN_MS = 5000
/**
 * Jobs one process holds beyond its attempts: checked and handed back (paused, at their caps),
 * or held while the earlier job of their task is attempted here. Large, so that each pull
 * reaches past the jobs handed back before (the server gives those first) to new ones: a
 * quiet account's job behind a noisy account's backlog comes in the next pull (ADR 0027).
 */
const JOBS_CHECKED_AT_ONCE = 1024
/** After a failure (NATS or MongoDB out of reach, or a message not handled yet), a message comes back this much later. */
const RETRY_AFTER_OUTAGE_MS = 2000

/**
 * The `webhooks` role: the fan-out (task events to delivery jobs) and the deliverer (jobs
 * to signed POSTs, with retries), both on durable consumers shared by every process that
 * runs the role. See docs/webhooks.md, ADR 0025 and ADR 0027 (fairness).
 */
export class WebhookService {
  private constructor(
    private readonly loops: readonly PullLoop[],
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
    await jsm.consumers
      .add(JOBS_STREAM, {
        durable_name: DELIVERY_CONSUMER,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        // Past the attempt's own time limit: a deliverer that died mid-attempt gives its job back.
        ack_wait: (config.WEBHOOKS_TIMEOUT_MS + 30_000) * NANOS_PER_MS,
        max_deliver: -1,
        max_ack_pending: 10_000,
      })
      .catch(async () => jsm.consumers.info(JOBS_STREAM, DELIVERY_CONSUMER))
    const tallies = await openBucket(js, TALLIES_BUCKET, { replicas: config.NATS_STREAM_REPLICAS, ttl: config.WEBHOOKS_RETRY_WINDOW_MS + DAY_MS })
    const caps = { perAccount: config.WEBHOOKS_MAX_IN_FLIGHT_PER_ACCOUNT, perWebhook: config.WEBHOOKS_MAX_IN_FLIGHT_PER_WEBHOOK }
    const leases = await WebhookLeases.open(js, { replicas: config.NATS_STREAM_REPLICAS, caps, holdMs: config.WEBHOOKS_TIMEOUT_MS + LEASE_MARGIN_MS })
    const endpoints = await WebhookEndpoints.open(js, { replicas: config.NATS_STREAM_REPLICAS })
    const deliverer = new Deliverer(
      { jsm, readModels: infra.readModels, box, tallies, attempts: new WebhookAttempts(js, jsm), leases, endpoints, log },
      {
        retry: { baseMs: config.WEBHOOKS_RETRY_BASE_MS, maxMs: config.WEBHOOKS_RETRY_MAX_DELAY_MS, windowMs: config.WEBHOOKS_RETRY_WINDOW_MS },
        pause: { afterTimeouts: config.WEBHOOKS_PAUSE_AFTER_TIMEOUTS, firstPauseMs: config.WEBHOOKS_PAUSE_MS, maxPauseMs: Math.max(config.WEBHOOKS_PAUSE_MS, config.WEBHOOKS_RETRY_MAX_DELAY_MS) },
        attempt: { timeoutMs: config.WEBHOOKS_TIMEOUT_MS, allowPrivate: config.WEBHOOKS_ALLOW_PRIVATE_URLS },
        // Half the slots at most for retries: first attempts always find room (ADR 0027).
        slots: config.WEBHOOKS_CONCURRENCY,
        retrySlots: Math.max(1, Math.floor(config.WEBHOOKS_CONCURRENCY / 2)),
      },
    )
    const poison = new PoisonMessages(infra.db, log)
    const failed = (consumer: string) => ({ consumer, poison, failures: new HandlingFailures(), log, retryMs: RETRY_AFTER_OUTAGE_MS })
    const loops = [
      new PullLoop(
        () => js.consumers.get('MATS_TASKS', FAN_OUT_CONSUMER),
        { concurrency: 1, failed: failed('webhooks:fan-out') },
        (msg) => fanOut(infra, msg),
        log,
      ),
      new PullLoop(
        () => js.consumers.get(JOBS_STREAM, DELIVERY_CONSUMER),
        // Past the attempt slots: most jobs in hand are only checked and handed back (waiting behind their task, paused, at their caps).
        { concurrency: config.WEBHOOKS_CONCURRENCY + JOBS_CHECKED_AT_ONCE, failed: failed('webhooks:delivery') },
        (msg) => deliverer.handle(msg),
        log,
      ),
    ]
    return new WebhookService(loops, log, { concurrency: config.WEBHOOKS_CONCURRENCY, caps })
  }

  start(): void {
    for (const loop of this.loops) loop.start()
    this.log.info(this.settings, 'webhooks started')
  }

  async stop(): Promise<void> {
    await Promise.all(this.loops.map((loop) => loop.stop()))
    this.log.info('webhooks stopped')
  }
}

import type { JetStreamManager, JsMsg } from '@nats-io/jetstream'
import type { KV } from '@nats-io/kv'
import type { Logger } from 'pino'
import { ownedWebhook, type ReadModels } from '../../projections/index.js'
import { retryDelayMs, shouldGiveUp, type RetryPolicy } from '../../src/domain/webhooks/backoff.js'
import { secretsToSignWith } from '../../src/domain/webhooks/secrets.js'
import { signatureHeaders } from '../../src/domain/webhooks/signing.js'
import type { SecretBox } from '../../src/infra/crypto/secret-box.js'
import type { WebhookAttempts } from '../../src/infra/nats/webhook-attempts.js'
import { JOBS_STREAM } from '../../src/infra/nats/webhook-streams.js'
import { attemptDelivery, type AttemptOptions } from './attempt.js'
import { decodeJob, type DeliveryJob } from './job.js'

/** How often a job waiting behind an earlier one of its task looks again, at most. */
const MAX_WAIT_BEHIND_MS = 30_000

interface Tally {
  readonly attempts: number
  readonly firstAt: number
}

export interface DelivererDeps {
  readonly jsm: JetStreamManager
  readonly readModels: ReadModels
  readonly box: SecretBox
  /** Attempts made per delivery, so far: the job message itself cannot change (ADR 0025). */
  readonly tallies: KV
  readonly attempts: WebhookAttempts
  readonly log: Logger
}

/**
 * Makes one attempt of a delivery job, then acknowledges it (delivered, webhook deleted,
 * or given up after the retry window) or hands it back with the backoff delay. Jobs share
 * a subject per (webhook, task) on a work queue: only the oldest of a subject is attempted,
 * the others wait behind it, so a task's deliveries arrive in order while other tasks' flow.
 */
export class Deliverer {
  constructor(
    private readonly deps: DelivererDeps,
    private readonly policy: RetryPolicy,
    private readonly options: AttemptOptions,
  ) {}

  async handle(msg: JsMsg): Promise<void> {
    if (!(await this.isOldestOfItsTask(msg))) return msg.nak(Math.min(MAX_WAIT_BEHIND_MS, this.policy.baseMs * msg.info.deliveryCount))
    const job = decodeJob(msg.data)
    const hook = await ownedWebhook(this.deps.readModels, job.accountId, job.webhookId)
    if (!hook) {
      await this.forget(job)
      return msg.ack()
    }
    const tally = await this.count(job)
    const secrets = secretsToSignWith(hook, new Date()).map((sealed) => this.deps.box.open(sealed))
    const headers = signatureHeaders(secrets, job.messageId, new Date(), job.body)
    const outcome = await attemptDelivery(hook.url, headers, job.body, this.options)
    const delivered = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300
    const givingUp = !delivered && shouldGiveUp(this.policy, tally.firstAt, Date.now())
    await this.deps.attempts.record(job.webhookId, {
      messageId: job.messageId,
      event: job.event,
      taskId: job.taskId,
      attempt: tally.attempts,
      statusCode: outcome.statusCode,
      error: outcome.error,
      attemptedAt: new Date().toISOString(),
      willRetry: !delivered && !givingUp,
    })
    if (delivered || givingUp) {
      if (givingUp) this.deps.log.warn({ webhookId: job.webhookId, messageId: job.messageId, attempts: tally.attempts }, 'webhook delivery given up after its retry window')
      await this.forget(job)
      return msg.ack()
    }
    msg.nak(retryDelayMs(this.policy, tally.attempts))
  }

  private async isOldestOfItsTask(msg: JsMsg): Promise<boolean> {
    // Asked of the stream leader: acknowledged jobs leave the work queue, so the first one left is the task's next.
    const first = { seq: 1, next_by_subj: msg.subject }
    const oldest = await this.deps.jsm.streams.getMessage(JOBS_STREAM, first)
    return !oldest || oldest.seq >= msg.seq
  }

  private async count(job: DeliveryJob): Promise<Tally> {
    const entry = await this.deps.tallies.get(tallyKey(job))
    const before = entry?.value.length ? entry.json<Tally>() : { attempts: 0, firstAt: Date.now() }
    const tally = { attempts: before.attempts + 1, firstAt: before.firstAt }
    await this.deps.tallies.put(tallyKey(job), JSON.stringify(tally))
    return tally
  }

  private async forget(job: DeliveryJob): Promise<void> {
    await this.deps.tallies.purge(tallyKey(job))
  }
}

const tallyKey = (job: DeliveryJob) => `${job.webhookId}.${job.messageId}`

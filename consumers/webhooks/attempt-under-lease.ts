import type { KV } from '@nats-io/kv'
import type { Logger } from 'pino'
import type { ReadModels, WebhookDoc } from '../../projections/index.js'
import { retryDelayMs, shouldGiveUp, type RetryPolicy } from '../../src/domain/webhooks/backoff.js'
import type { EndpointHealth, Lease, PausePolicy } from '../../src/domain/webhooks/fairness.js'
import { secretsToSignWith } from '../../src/domain/webhooks/secrets.js'
import { signatureHeaders } from '../../src/domain/webhooks/signing.js'
import type { SecretBox } from '../../src/infra/crypto/secret-box.js'
import type { PoisonMessages } from '../../src/infra/mongo/poison-messages.js'
import type { WebhookAttempts } from '../../src/infra/nats/webhook-attempts.js'
import type { WebhookEndpoints } from '../../src/infra/nats/webhook-endpoints.js'
import type { WebhookLeases } from '../../src/infra/nats/webhook-leases.js'
import type { QueuedJob, WebhookQueue } from '../../src/infra/nats/webhook-queue.js'
import { attemptDelivery, type AttemptOptions, type AttemptOutcome } from './attempt.js'
import type { DeliveryJob } from './job.js'

/** After an error (NATS or MongoDB out of reach), the job is left alone this long. */
const AFTER_ERROR_MS = 2000

/** Attempts made so far of one delivery (KV `mats_webhook_attempts`): the job message itself cannot change (ADR 0025). */
export interface Tally {
  readonly attempts: number
  readonly firstAt: number
  /** When the next attempt is due, while the delivery waits for it. */
  readonly retryAt?: number
}

export interface DelivererDeps {
  readonly readModels: ReadModels
  readonly box: SecretBox
  /** Attempts made per delivery, so far: the job message itself cannot change (ADR 0025). */
  readonly tallies: KV
  readonly attempts: WebhookAttempts
  /** Attempts in flight per account and per webhook, and which (webhook, task) queue each claims, across processes (ADR 0027, 0033). */
  readonly leases: WebhookLeases
  /** Timeouts in a row and pauses, per webhook (ADR 0027). */
  readonly endpoints: WebhookEndpoints
  readonly queue: WebhookQueue
  readonly poison: PoisonMessages
  readonly log: Logger
}

export interface DelivererPolicy {
  readonly retry: RetryPolicy
  readonly pause: PausePolicy
  readonly attempt: AttemptOptions
}

/**
 * One attempt of a job under its lease, then what follows: the job removed (delivered, or given
 * up after the retry window), or its retry time written with its attempt count; the lease is
 * given back last. Its outcome also counts towards pausing the endpoint (ADR 0027).
 */
export async function attemptUnderLease(
  deps: DelivererDeps,
  policy: DelivererPolicy,
  { queued, job, hook, before, health, lease }: { queued: QueuedJob; job: DeliveryJob; hook: WebhookDoc; before: Tally; health: EndpointHealth; lease: Lease },
): Promise<void> {
  const tally = { attempts: before.attempts + 1, firstAt: before.firstAt }
  try {
    const secrets = secretsToSignWith(hook, new Date()).map((sealed) => deps.box.open(sealed))
    const headers = signatureHeaders(secrets, job.messageId, new Date(), job.body)
    // Counted while the POST is under way: a process that dies mid-attempt has counted it.
    const [, outcome] = await Promise.all([deps.tallies.put(tallyKey(job), JSON.stringify(tally)), attemptDelivery(hook.url, headers, job.body, policy.attempt)])
    await settle(deps, policy, { queued, job, tally, outcome, health })
  } catch (err) {
    // Not attempted again at once by the lane: the retry time is written as after a failure (best effort).
    await deps.tallies.put(tallyKey(job), JSON.stringify({ ...tally, retryAt: Date.now() + AFTER_ERROR_MS })).catch(() => undefined)
    throw err
  } finally {
    // Released last: the job is removed or its retry time written by then, so no other process attempts it again meanwhile.
    await deps.leases.release(job.accountId, lease)
  }
}

async function settle(
  deps: DelivererDeps,
  policy: DelivererPolicy,
  { queued, job, tally, outcome, health }: { queued: QueuedJob; job: DeliveryJob; tally: Tally; outcome: AttemptOutcome; health: EndpointHealth },
): Promise<void> {
  const delivered = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300
  const givingUp = !delivered && shouldGiveUp(policy.retry, tally.firstAt, Date.now())
  const after = await deps.endpoints.record(job.webhookId, health, outcome.timedOut === true, policy.pause)
  const pausedNow = after.pauses > health.pauses && after.pausedUntil !== null
  if (pausedNow) deps.log.warn({ webhookId: job.webhookId, timeouts: after.timeouts, pausedUntil: new Date(after.pausedUntil).toISOString() }, 'webhook paused after timeouts in a row')
  const recorded = deps.attempts.record(job.webhookId, {
    messageId: job.messageId,
    event: job.event,
    taskId: job.taskId,
    attempt: tally.attempts,
    statusCode: outcome.statusCode,
    error: outcome.error,
    attemptedAt: new Date().toISOString(),
    willRetry: !delivered && !givingUp,
    pausedUntil: pausedNow ? new Date(after.pausedUntil).toISOString() : null,
  })
  if (delivered || givingUp) {
    if (givingUp) deps.log.warn({ webhookId: job.webhookId, messageId: job.messageId, attempts: tally.attempts }, 'webhook delivery given up after its retry window')
    await Promise.all([recorded, deps.queue.remove(queued.seq)])
    await deps.tallies.purge(tallyKey(job))
    return
  }
  // A pause longer than the backoff holds the retry too: it comes when the pause ends.
  const delay = Math.max(retryDelayMs(policy.retry, tally.attempts), pausedNow ? after.pausedUntil - Date.now() : 0)
  await Promise.all([recorded, deps.tallies.put(tallyKey(job), JSON.stringify({ ...tally, retryAt: Date.now() + delay }))])
}

export async function tallyOf(deps: Pick<DelivererDeps, 'tallies'>, job: DeliveryJob): Promise<Tally> {
  const entry = await deps.tallies.get(tallyKey(job))
  return entry?.value.length ? entry.json<Tally>() : { attempts: 0, firstAt: Date.now() }
}

const tallyKey = (job: DeliveryJob) => `${job.webhookId}.${job.messageId}`

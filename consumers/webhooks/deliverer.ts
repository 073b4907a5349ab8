import type { KV } from '@nats-io/kv'
import type { Logger } from 'pino'
import { ownedWebhook, type ReadModels, type WebhookDoc } from '../../projections/index.js'
import { retryDelayMs, shouldGiveUp, type RetryPolicy } from '../../src/domain/webhooks/backoff.js'
import { headsOfQueues, isPaused, type EndpointHealth, type Lease, type PausePolicy } from '../../src/domain/webhooks/fairness.js'
import { secretsToSignWith } from '../../src/domain/webhooks/secrets.js'
import { signatureHeaders } from '../../src/domain/webhooks/signing.js'
import type { SecretBox } from '../../src/infra/crypto/secret-box.js'
import type { PoisonMessages } from '../../src/infra/mongo/poison-messages.js'
import type { WebhookAttempts } from '../../src/infra/nats/webhook-attempts.js'
import type { WebhookEndpoints } from '../../src/infra/nats/webhook-endpoints.js'
import type { WebhookLeases } from '../../src/infra/nats/webhook-leases.js'
import type { QueuedJob, WebhookQueue } from '../../src/infra/nats/webhook-queue.js'
import { JOBS_STREAM } from '../../src/infra/nats/webhook-streams.js'
import { attemptDelivery, type AttemptOptions, type AttemptOutcome } from './attempt.js'
import { decodeJob, type DeliveryJob } from './job.js'
import type { Slot } from './slots.js'

/** A webhook's jobs are read this many at a time, the heads of its (webhook, task) queues found among them, */
const JOBS_PER_PAGE = 128
/** and at most this many pages per visit while no head is due: tasks whose heads wait for retries hold back the next ones only past 512 jobs. */
const PAGES_PER_VISIT = 4
/** Tallies read at once while looking for a head that is due. */
const TALLIES_AT_ONCE = 16
/** A retry finding the retries' share of this process's slots taken looks again this much later. */
const RETRY_SHARE_WAIT_MS = 250
/** A webhook with nothing due and nothing to wait for (every head attempted elsewhere) is looked at again this much later. */
const NOTHING_DUE_WAIT_MS = 1000
/** After an error (NATS or MongoDB out of reach), the webhook is left alone this long. */
const AFTER_ERROR_MS = 2000

interface Tally {
  readonly attempts: number
  readonly firstAt: number
  /** When the next attempt is due, while the delivery waits for it. */
  readonly retryAt?: number
}

/** What one look at a webhook's queues came to: an attempt started, no job left, or a wait (the account at its cap, or only this webhook). */
export type StartOutcome = { readonly kind: 'started' } | { readonly kind: 'empty' } | { readonly kind: 'wait'; readonly scope: 'account' | 'webhook'; readonly ms: number }

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
 * Starts the next attempt of one webhook's deliveries (ADR 0033): only the head (oldest job)
 * of each (webhook, task) queue may be attempted, so a task's deliveries arrive in order while
 * other tasks' flow. Before the attempt (ADR 0027): a paused endpoint waits for its pause to
 * end, a retry waits while this process's share of retries is taken, and every attempt needs
 * a lease under its account's and its webhook's caps that also claims its queue. After it:
 * the job is removed (delivered, webhook deleted, or given up after the retry window), or its
 * retry time is written with its attempt count and it stays the head until then.
 */
export class Deliverer {
  /** The queues this process is attempting the head of. */
  private readonly attempting = new Set<string>()
  /** The attempts under way here, so that stopping can wait for them. */
  private readonly underWay = new Set<Promise<void>>()

  constructor(
    private readonly deps: DelivererDeps,
    private readonly policy: DelivererPolicy,
  ) {}

  /** Tries to start one attempt of the webhook's deliveries on `slot`; `done` is called when a started attempt ends (the slot is released by then). */
  async startNext(accountId: string, webhookId: string, slot: Slot, done: () => void): Promise<StartOutcome> {
    const capped = await this.deps.leases.room(accountId, webhookId)
    if (capped) return { kind: 'wait', scope: capped.blockedBy === 'account' ? 'account' : 'webhook', ms: capped.retryInMs }
    const [hook, health] = await Promise.all([ownedWebhook(this.deps.readModels, accountId, webhookId), this.deps.endpoints.health(webhookId)])
    if (!hook) {
      await this.deps.queue.dropWebhook(accountId, webhookId)
      return { kind: 'empty' }
    }
    if (isPaused(health, Date.now())) return { kind: 'wait', scope: 'webhook', ms: health.pausedUntil - Date.now() }
    const seen = new Set<string>()
    let soonestMs = NOTHING_DUE_WAIT_MS
    let from = 1
    for (let page = 0; page < PAGES_PER_VISIT; page++) {
      const jobs = await this.deps.queue.oldest(accountId, webhookId, JOBS_PER_PAGE, from)
      if (jobs.length === 0 && page === 0) return { kind: 'empty' }
      const heads = headsOfQueues(jobs, seen).filter((head) => !this.attempting.has(head.subject))
      const outcome = await this.startFirstDue(heads, hook, health, slot, done)
      if (typeof outcome === 'object') return outcome
      soonestMs = Math.min(soonestMs, outcome)
      const last = jobs.at(-1)
      if (!last || jobs.length < JOBS_PER_PAGE) break
      from = last.seq + 1
    }
    return { kind: 'wait', scope: 'webhook', ms: soonestMs }
  }

  /** Starts the first head that is due and can be leased; else how soon one may be (ms). */
  private async startFirstDue(heads: readonly QueuedJob[], hook: WebhookDoc, health: EndpointHealth, slot: Slot, done: () => void): Promise<StartOutcome | number> {
    let soonestMs = NOTHING_DUE_WAIT_MS
    for (let i = 0; i < heads.length; i += TALLIES_AT_ONCE) {
      const chunk = await Promise.all(heads.slice(i, i + TALLIES_AT_ONCE).map(async (queued) => this.withTally(queued)))
      for (const candidate of chunk) {
        if (!candidate) continue
        const outcome = await this.tryToStart(candidate, hook, health, slot, done)
        if (outcome === 'started') return { kind: 'started' }
        if (typeof outcome === 'object') return outcome
        soonestMs = Math.min(soonestMs, outcome)
      }
    }
    return soonestMs
  }

  /** Waits for the attempts under way here. */
  async drain(): Promise<void> {
    await Promise.allSettled(this.underWay)
  }

  /** The head with its job and tally; null for a job that cannot be read (recorded as poison and removed). */
  private async withTally(queued: QueuedJob): Promise<{ queued: QueuedJob; job: DeliveryJob; tally: Tally } | null> {
    let job: DeliveryJob
    try {
      job = decodeJob(queued.data)
    } catch (err) {
      await this.deps.poison.record({ stream: JOBS_STREAM, seq: queued.seq, subject: queued.subject, reason: String(err) }, 'webhooks:delivery')
      await this.deps.queue.remove(queued.seq)
      return null
    }
    return { queued, job, tally: await this.tallyOf(job) }
  }

  /** Starts the head if it is due and leased: 'started'; a wait that ends the visit (an object); or how soon this head may be due (ms). */
  private async tryToStart(
    candidate: { queued: QueuedJob; job: DeliveryJob; tally: Tally },
    hook: WebhookDoc,
    health: EndpointHealth,
    slot: Slot,
    done: () => void,
  ): Promise<'started' | StartOutcome | number> {
    const { queued, job, tally } = candidate
    const now = Date.now()
    if (tally.retryAt !== undefined && tally.retryAt > now) return tally.retryAt - now
    const isRetry = tally.attempts > 0
    if (isRetry && !slot.canRetry()) return RETRY_SHARE_WAIT_MS
    // The lease first: a job refused one never takes a slot here, so a busy account's backlog leaves the slots to others.
    const acquired = await this.deps.leases.acquire(job.accountId, job.webhookId, queued.subject)
    if (!('lease' in acquired)) return acquired.blockedBy === 'queue' ? acquired.retryInMs : { kind: 'wait', scope: acquired.blockedBy, ms: acquired.retryInMs }
    // Under the lease, asked again of the leader: another process may have delivered it, or failed it, just before.
    const [stillQueued, fresh] = await Promise.all([this.deps.queue.isQueued(queued.seq), this.tallyOf(job)])
    if (!stillQueued || fresh.attempts !== tally.attempts) {
      void this.deps.leases.release(job.accountId, acquired.lease)
      return 0
    }
    if (isRetry) slot.markRetry()
    this.attempting.add(queued.subject)
    const attempt = this.attemptUnderLease(queued, job, hook, fresh, health, acquired.lease)
      .catch((err: unknown) => this.deps.log.error({ err, webhookId: job.webhookId, messageId: job.messageId }, 'webhook attempt failed; the job stays queued'))
      .finally(() => {
        this.attempting.delete(queued.subject)
        this.underWay.delete(attempt)
        slot.release()
        done()
      })
    this.underWay.add(attempt)
    return 'started'
  }

  private async attemptUnderLease(queued: QueuedJob, job: DeliveryJob, hook: WebhookDoc, before: Tally, health: EndpointHealth, lease: Lease): Promise<void> {
    const tally = { attempts: before.attempts + 1, firstAt: before.firstAt }
    try {
      const secrets = secretsToSignWith(hook, new Date()).map((sealed) => this.deps.box.open(sealed))
      const headers = signatureHeaders(secrets, job.messageId, new Date(), job.body)
      // Counted while the POST is under way: a process that dies mid-attempt has counted it.
      const [, outcome] = await Promise.all([this.deps.tallies.put(tallyKey(job), JSON.stringify(tally)), attemptDelivery(hook.url, headers, job.body, this.policy.attempt)])
      await this.settle(queued, job, tally, outcome, health)
    } catch (err) {
      // Not attempted again at once by the lane: the retry time is written as after a failure (best effort).
      await this.deps.tallies.put(tallyKey(job), JSON.stringify({ ...tally, retryAt: Date.now() + AFTER_ERROR_MS })).catch(() => undefined)
      throw err
    } finally {
      // Released last: the job is removed or its retry time written by then, so no other process attempts it again meanwhile.
      await this.deps.leases.release(job.accountId, lease)
    }
  }

  private async settle(queued: QueuedJob, job: DeliveryJob, tally: Tally, outcome: AttemptOutcome, health: EndpointHealth): Promise<void> {
    const delivered = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300
    const givingUp = !delivered && shouldGiveUp(this.policy.retry, tally.firstAt, Date.now())
    const after = await this.deps.endpoints.record(job.webhookId, health, outcome.timedOut === true, this.policy.pause)
    const pausedNow = after.pauses > health.pauses && after.pausedUntil !== null
    if (pausedNow) this.deps.log.warn({ webhookId: job.webhookId, timeouts: after.timeouts, pausedUntil: new Date(after.pausedUntil).toISOString() }, 'webhook paused after timeouts in a row')
    const recorded = this.deps.attempts.record(job.webhookId, {
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
      if (givingUp) this.deps.log.warn({ webhookId: job.webhookId, messageId: job.messageId, attempts: tally.attempts }, 'webhook delivery given up after its retry window')
      await Promise.all([recorded, this.deps.queue.remove(queued.seq)])
      await this.deps.tallies.purge(tallyKey(job))
      return
    }
    // A pause longer than the backoff holds the retry too: it comes when the pause ends.
    const delay = Math.max(retryDelayMs(this.policy.retry, tally.attempts), pausedNow ? after.pausedUntil - Date.now() : 0)
    await Promise.all([recorded, this.deps.tallies.put(tallyKey(job), JSON.stringify({ ...tally, retryAt: Date.now() + delay }))])
  }

  private async tallyOf(job: DeliveryJob): Promise<Tally> {
    const entry = await this.deps.tallies.get(tallyKey(job))
    return entry?.value.length ? entry.json<Tally>() : { attempts: 0, firstAt: Date.now() }
  }
}

const tallyKey = (job: DeliveryJob) => `${job.webhookId}.${job.messageId}`

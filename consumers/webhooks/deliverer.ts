import type { JetStreamManager, JsMsg } from '@nats-io/jetstream'
import type { KV } from '@nats-io/kv'
import type { Logger } from 'pino'
import { ownedWebhook, type ReadModels, type WebhookDoc } from '../../projections/index.js'
import { retryDelayMs, shouldGiveUp, type RetryPolicy } from '../../src/domain/webhooks/backoff.js'
import { isPaused, waitBehindMs, type EndpointHealth, type Lease, type PausePolicy } from '../../src/domain/webhooks/fairness.js'
import { secretsToSignWith } from '../../src/domain/webhooks/secrets.js'
import { signatureHeaders } from '../../src/domain/webhooks/signing.js'
import type { SecretBox } from '../../src/infra/crypto/secret-box.js'
import type { WebhookAttempts } from '../../src/infra/nats/webhook-attempts.js'
import type { WebhookEndpoints } from '../../src/infra/nats/webhook-endpoints.js'
import type { WebhookLeases } from '../../src/infra/nats/webhook-leases.js'
import { JOBS_STREAM } from '../../src/infra/nats/webhook-streams.js'
import { attemptDelivery, type AttemptOptions, type AttemptOutcome } from './attempt.js'
import { decodeJob, type DeliveryJob } from './job.js'

/** A job that finds this process's slots (or its share for retries) taken looks again this much later. */
const SLOT_WAIT_MS = 250
/** A job refused a lease looks again after 25 ms doubling with each delivery, up to 5 s: a long backlog stays cheap to hold. */
const FIRST_BUSY_WAIT_MS = 25
const MAX_BUSY_WAIT_MS = 5000

interface Tally {
  readonly attempts: number
  readonly firstAt: number
  /** When the next attempt is due, while the delivery waits for it: what the task's later jobs wait for. */
  readonly retryAt?: number
}

export interface DelivererDeps {
  readonly jsm: JetStreamManager
  readonly readModels: ReadModels
  readonly box: SecretBox
  /** Attempts made per delivery, so far: the job message itself cannot change (ADR 0025). */
  readonly tallies: KV
  readonly attempts: WebhookAttempts
  /** Attempts in flight per account and per webhook, across processes (ADR 0027). */
  readonly leases: WebhookLeases
  /** Timeouts in a row and pauses, per webhook (ADR 0027). */
  readonly endpoints: WebhookEndpoints
  readonly log: Logger
}

export interface DelivererPolicy {
  readonly retry: RetryPolicy
  readonly pause: PausePolicy
  readonly attempt: AttemptOptions
  /** Attempts this process makes at once (WEBHOOKS_CONCURRENCY); jobs in hand only to be checked and handed back do not count. */
  readonly slots: number
  /** Retries this process attempts at once at most: the other slots are kept for first attempts. */
  readonly retrySlots: number
}

/**
 * Makes one attempt of a delivery job, then acknowledges it (delivered, webhook deleted,
 * or given up after the retry window) or hands it back with the backoff delay. Jobs share
 * a subject per (webhook, task) on a work queue: only the oldest of a subject is attempted,
 * the others wait behind it, so a task's deliveries arrive in order while other tasks' flow.
 * Before the attempt, fairness (ADR 0027): a paused endpoint's jobs wait for the pause to
 * end, a retry waits while this process's share of retries is taken, and every attempt needs
 * a lease under its account's and its webhook's caps, or is handed back until one frees.
 */
export class Deliverer {
  private attemptsInFlight = 0
  private retriesInFlight = 0
  /** The jobs this process is handling as the head of their subject, by subject. */
  private readonly heads = new Map<string, Promise<void>>()

  constructor(
    private readonly deps: DelivererDeps,
    private readonly policy: DelivererPolicy,
  ) {}

  async handle(msg: JsMsg): Promise<void> {
    let head = await this.earlierJobOfItsTask(msg)
    if (head && (await this.waitedForHeadHere(msg))) head = await this.earlierJobOfItsTask(msg)
    if (head) return msg.nak(await this.waitBehind(head, msg))
    const handling = this.handleHead(msg)
    this.heads.set(msg.subject, handling)
    try {
      await handling
    } finally {
      if (this.heads.get(msg.subject) === handling) this.heads.delete(msg.subject)
    }
  }

  /**
   * When this process is handling the task's earlier job right now, waits for it (its ack is
   * awaited, so the stream has dropped it by then): a prompt receiver gets the next event at
   * once instead of after a poll, and a slow one's backlog is held here, not redelivered over
   * and over. Holding takes no attempt slot; it lasts an attempt at most (bounded all the same).
   */
  private async waitedForHeadHere(msg: JsMsg): Promise<boolean> {
    const handling = this.heads.get(msg.subject)
    if (!handling) return false
    let timer: NodeJS.Timeout | undefined
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.policy.attempt.timeoutMs + 1000)
    })
    await Promise.race([handling.catch(() => undefined), bound]).finally(() => clearTimeout(timer))
    return true
  }

  private async handleHead(msg: JsMsg): Promise<void> {
    const job = decodeJob(msg.data)
    const [hook, health, before] = await Promise.all([ownedWebhook(this.deps.readModels, job.accountId, job.webhookId), this.deps.endpoints.health(job.webhookId), this.tallyOf(job)])
    if (!hook) {
      await this.forget(job)
      return void (await msg.ackAck())
    }
    if (isPaused(health, Date.now())) return msg.nak(jittered(health.pausedUntil - Date.now()))
    const isRetry = before.attempts > 0
    if (!this.hasSlot(isRetry)) return msg.nak(jittered(SLOT_WAIT_MS))
    // The lease first: a job refused one never takes a slot here, so a busy account's backlog leaves the slots to others.
    const acquired = await this.deps.leases.acquire(job.accountId, job.webhookId)
    if (!('lease' in acquired)) {
      const backingOff = FIRST_BUSY_WAIT_MS * 2 ** Math.min(msg.info.deliveryCount - 1, 10)
      return msg.nak(jittered(Math.min(MAX_BUSY_WAIT_MS, Math.max(acquired.retryInMs, backingOff))))
    }
    if (!this.hasSlot(isRetry)) {
      void this.deps.leases.release(job.accountId, acquired.lease)
      return msg.nak(jittered(SLOT_WAIT_MS))
    }
    this.attemptsInFlight++
    if (isRetry) this.retriesInFlight++
    try {
      await this.attemptUnderLease(msg, job, hook, before, health, acquired.lease)
    } finally {
      this.attemptsInFlight--
      if (isRetry) this.retriesInFlight--
    }
  }

  private hasSlot(isRetry: boolean): boolean {
    return this.attemptsInFlight < this.policy.slots && (!isRetry || this.retriesInFlight < this.policy.retrySlots)
  }

  private async attemptUnderLease(msg: JsMsg, job: DeliveryJob, hook: WebhookDoc, before: Tally, health: EndpointHealth, lease: Lease): Promise<void> {
    const tally = { attempts: before.attempts + 1, firstAt: before.firstAt }
    let outcome: AttemptOutcome
    try {
      const secrets = secretsToSignWith(hook, new Date()).map((sealed) => this.deps.box.open(sealed))
      const headers = signatureHeaders(secrets, job.messageId, new Date(), job.body)
      // Counted while the POST is under way: a process that dies mid-attempt has counted it.
      const [, answer] = await Promise.all([this.deps.tallies.put(tallyKey(job), JSON.stringify(tally)), attemptDelivery(hook.url, headers, job.body, this.policy.attempt)])
      outcome = answer
    } finally {
      void this.deps.leases.release(job.accountId, lease)
    }
    await this.settle(msg, job, tally, outcome, health)
  }

  private async settle(msg: JsMsg, job: DeliveryJob, tally: Tally, outcome: AttemptOutcome, health: EndpointHealth): Promise<void> {
    const delivered = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300
    const givingUp = !delivered && shouldGiveUp(this.policy.retry, tally.firstAt, Date.now())
    const after = await this.deps.endpoints.record(job.webhookId, health, outcome.timedOut === true, this.policy.pause)
    const attemptedAt = new Date().toISOString()
    const pausedNow = after.pauses > health.pauses && after.pausedUntil !== null
    if (pausedNow) this.deps.log.warn({ webhookId: job.webhookId, timeouts: after.timeouts, pausedUntil: new Date(after.pausedUntil).toISOString() }, 'webhook paused after timeouts in a row')
    const recorded = this.deps.attempts.record(job.webhookId, {
      messageId: job.messageId,
      event: job.event,
      taskId: job.taskId,
      attempt: tally.attempts,
      statusCode: outcome.statusCode,
      error: outcome.error,
      attemptedAt,
      willRetry: !delivered && !givingUp,
      pausedUntil: pausedNow ? new Date(after.pausedUntil).toISOString() : null,
    })
    if (delivered || givingUp) {
      if (givingUp) this.deps.log.warn({ webhookId: job.webhookId, messageId: job.messageId, attempts: tally.attempts }, 'webhook delivery given up after its retry window')
      await Promise.all([recorded, this.forget(job)])
      return void (await msg.ackAck())
    }
    // A pause longer than the backoff holds the retry too: it comes back when the pause ends.
    const delay = Math.max(retryDelayMs(this.policy.retry, tally.attempts), pausedNow ? jittered(after.pausedUntil - Date.now()) : 0)
    await Promise.all([recorded, this.deps.tallies.put(tallyKey(job), JSON.stringify({ ...tally, retryAt: Date.now() + delay }))])
    msg.nak(delay)
  }

  /** The task's earlier job still queued for this webhook, if any: asked of the stream leader (acknowledged jobs leave a work queue). */
  private async earlierJobOfItsTask(msg: JsMsg): Promise<{ data: Uint8Array } | null> {
    const first = { seq: 1, next_by_subj: msg.subject }
    const oldest = await this.deps.jsm.streams.getMessage(JOBS_STREAM, first)
    return oldest && oldest.seq < msg.seq ? oldest : null
  }

  /** Until the earlier job is likely done: its retry time or its endpoint's pause if it waits for one, else soon (it is being attempted). */
  private async waitBehind(head: { data: Uint8Array }, msg: JsMsg): Promise<number> {
    const headJob = decodeJob(head.data)
    const [tally, health] = await Promise.all([this.tallyOf(headJob), this.deps.endpoints.health(headJob.webhookId)])
    return waitBehindMs({ retryAt: tally.retryAt ?? null, pausedUntil: health.pausedUntil }, msg.info.deliveryCount - 1, Date.now())
  }

  private async tallyOf(job: DeliveryJob): Promise<Tally> {
    const entry = await this.deps.tallies.get(tallyKey(job))
    return entry?.value.length ? entry.json<Tally>() : { attempts: 0, firstAt: Date.now() }
  }

  private async forget(job: DeliveryJob): Promise<void> {
    await this.deps.tallies.purge(tallyKey(job))
  }
}

const tallyKey = (job: DeliveryJob) => `${job.webhookId}.${job.messageId}`

/** Up to a quarter more, so that jobs handed back together do not all come back at once. */
const jittered = (ms: number) => Math.max(1, Math.round(ms * (1 + Math.random() / 4)))

import { ownedWebhook, type WebhookDoc } from '../../projections/index.js'
import { headsOfQueues, isPaused, type EndpointHealth } from '../../src/domain/webhooks/fairness.js'
import type { QueuedJob } from '../../src/infra/nats/webhook-queue.js'
import { JOBS_STREAM } from '../../src/infra/nats/webhook-streams.js'
import { attemptUnderLease, tallyOf, type DelivererDeps, type DelivererPolicy, type Tally } from './attempt-under-lease.js'
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

/** What one look at a webhook's queues came to: an attempt started, no job left, or a wait (the account at its cap, or only this webhook). */
export type StartOutcome = { readonly kind: 'started' } | { readonly kind: 'empty' } | { readonly kind: 'wait'; readonly scope: 'account' | 'webhook'; readonly ms: number }

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
    // Side by side, not one after the other: a round trip less before each attempt (issue 19); the two reads are wasted only on a capped visit.
    const [capped, hook, health] = await Promise.all([this.deps.leases.room(accountId, webhookId), ownedWebhook(this.deps.readModels, accountId, webhookId), this.deps.endpoints.health(webhookId)])
    if (capped) return { kind: 'wait', scope: capped.blockedBy === 'account' ? 'account' : 'webhook', ms: capped.retryInMs }
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
    const attempt = attemptUnderLease(this.deps, this.policy, { queued, job, hook, before: fresh, health, lease: acquired.lease })
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

  private tallyOf(job: DeliveryJob): Promise<Tally> {
    return tallyOf(this.deps, job)
  }
}

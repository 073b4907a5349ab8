/**
 * How webhook deliveries share the deliverers fairly (ADR 0027, ADR 0033): attempts in flight
 * are capped per account and per webhook, counted in leases every webhooks process sees (a
 * lease also claims its job's (webhook, task) queue, so no two processes attempt it at once),
 * and an endpoint that keeps timing out is paused for a while so it stops holding slots.
 * Pure: the leases and the endpoint's health are read and written by src/infra/nats.
 */

/** One attempt in flight: held from just before the POST until its outcome is known. */
export interface Lease {
  readonly id: string
  readonly webhookId: string
  /** The queue (job subject) of the job attempted: one attempt per (webhook, task) at a time, across processes. Absent on leases written before ADR 0033. */
  readonly subject?: string
  /** When the attempt started (ms since the epoch). */
  readonly since: number
  /** When the lease counts no more even if never released (a process that died mid-attempt). */
  readonly until: number
}

export interface InFlightCaps {
  readonly perAccount: number
  readonly perWebhook: number
}

/** Refused: the account or the webhook is at its cap (ask again in `retryInMs`), or the job's queue is being attempted already (`queueTaken`: try another). */
export type Admission = { readonly admitted: true; readonly leases: Lease[] } | { readonly admitted: false; readonly retryInMs: number; readonly blockedBy: 'account' | 'webhook' | 'queue' }

/** The shortest wait before asking again when every slot is taken, and the longest. */
const MIN_BUSY_WAIT_MS = 25
const MAX_BUSY_WAIT_MS = 5000

/**
 * Whether one more attempt of `webhookId` may start now, given the account's leases: if so,
 * the leases to store (expired ones dropped, the new one added); if not, how long to wait.
 * The wait guesses that an attempt lasts about as long again as it has lasted so far: a
 * prompt receiver's slot is asked for again within milliseconds, a slow one's in seconds.
 */
export function admit(leases: readonly Lease[], candidate: Lease, caps: InFlightCaps, now: number): Admission {
  const live = leases.filter((lease) => lease.until > now)
  const sameWebhook = live.filter((lease) => lease.webhookId === candidate.webhookId)
  const sameQueue = candidate.subject === undefined ? [] : live.filter((lease) => lease.subject === candidate.subject)
  const [blockedBy, blocking] =
    live.length >= caps.perAccount
      ? (['account', live] as const)
      : sameWebhook.length >= caps.perWebhook
        ? (['webhook', sameWebhook] as const)
        : sameQueue.length > 0
          ? (['queue', sameQueue] as const)
          : [null, []]
  if (!blockedBy) return { admitted: true, leases: [...live, candidate] }
  const soonest = Math.min(...blocking.map((lease) => Math.min(lease.until - now, Math.max(now - lease.since, MIN_BUSY_WAIT_MS))))
  return { admitted: false, retryInMs: Math.min(MAX_BUSY_WAIT_MS, Math.max(MIN_BUSY_WAIT_MS, soonest)), blockedBy }
}

export function release(leases: readonly Lease[], leaseId: string, now: number): Lease[] {
  return leases.filter((lease) => lease.id !== leaseId && lease.until > now)
}

/** An endpoint's recent timeouts, and whether it is paused. */
export interface EndpointHealth {
  /** Attempts in a row that got no answer within the time limit. */
  readonly timeouts: number
  /** Deliveries wait until then (ms since the epoch); null when not paused. */
  readonly pausedUntil: number | null
  /** Pauses in a row: each lasts twice as long as the one before. */
  readonly pauses: number
}

export const HEALTHY: EndpointHealth = { timeouts: 0, pausedUntil: null, pauses: 0 }

export interface PausePolicy {
  /** Timeouts in a row that pause the endpoint. */
  readonly afterTimeouts: number
  readonly firstPauseMs: number
  readonly maxPauseMs: number
}

/**
 * The endpoint's health after an attempt. Any answer (even a 500: the receiver is there and
 * quick) makes it healthy again. The first attempt after a pause is a probe: if it times out
 * too, the count is still past the threshold and the endpoint is paused again, for twice as long.
 */
export function afterAttempt(health: EndpointHealth, timedOut: boolean, policy: PausePolicy, now: number): EndpointHealth {
  if (!timedOut) return HEALTHY
  const timeouts = health.timeouts + 1
  if (timeouts < policy.afterTimeouts) return { ...health, timeouts }
  const pauseMs = Math.min(policy.maxPauseMs, policy.firstPauseMs * 2 ** Math.min(health.pauses, 30))
  return { timeouts, pausedUntil: now + pauseMs, pauses: health.pauses + 1 }
}

export function isPaused(health: EndpointHealth, now: number): health is EndpointHealth & { pausedUntil: number } {
  return health.pausedUntil !== null && health.pausedUntil > now
}

/**
 * The oldest job of each queue (one queue per (webhook, task) subject), given jobs in queue
 * order: only those may be attempted, so a task's deliveries to a receiver stay in order.
 * `seen` holds the queues met on earlier pages of the same read (their heads came before), and
 * is added to.
 */
export function headsOfQueues<Job extends { readonly subject: string }>(jobs: readonly Job[], seen = new Set<string>()): Job[] {
  return jobs.filter((job) => !seen.has(job.subject) && seen.add(job.subject))
}

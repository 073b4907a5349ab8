import type { JsMsg } from '@nats-io/jetstream'
import type { Logger } from 'pino'
import type { PoisonMessages } from '../mongo/poison-messages.js'
import { isDependencyUnavailable } from '../unavailable.js'
import { UndecodableMessageError } from './decode.js'

/** Failed handlings of one message, for a reason other than an outage, before it is given up. */
export const MAX_HANDLING_ATTEMPTS = 5
/** Messages whose failures a process keeps count of at once; the oldest counts are dropped first. */
const TRACKED = 10_000

/**
 * How often each message's handling has failed in this process. Not the delivery count: a
 * consumer also hands messages back on purpose (a webhook's backoff, a task whose claimer is
 * alive) and during outages, and none of those is a failure to handle it.
 */
export class HandlingFailures {
  private readonly counts = new Map<string, number>()

  /** Counts one more failure of `msg`; returns how many there have been. */
  add(msg: JsMsg): number {
    const key = keyOf(msg)
    const count = (this.counts.get(key) ?? 0) + 1
    this.counts.delete(key)
    this.counts.set(key, count)
    if (this.counts.size > TRACKED) this.counts.delete(this.counts.keys().next().value!)
    return count
  }

  /** Forgets `msg`: it was handled, or given up. */
  forget(msg: JsMsg): void {
    this.counts.delete(keyOf(msg))
  }
}

function keyOf(msg: JsMsg): string {
  return `${msg.info.stream}#${msg.seq}`
}

export interface FailedMessagePolicy {
  /** Who gives it up, as `mats projections status` names it (`webhooks:fan-out`). */
  readonly consumer: string
  readonly poison: PoisonMessages
  readonly failures: HandlingFailures
  readonly log: Logger
  /** How much later a message comes back after a failure. */
  readonly retryMs: number
}

/** What to do with a message whose handling failed: deliver it again, or give it up for this reason. */
export type FailureVerdict = { readonly retry: true; readonly failed: number } | { readonly retry: false; readonly reason: string }

/**
 * An outage of NATS or MongoDB hands a message back for later, for as long as it lasts. A
 * message that is not an event would fail the same way forever: it is given up at once. Any
 * other failure is retried until it has happened MAX_HANDLING_ATTEMPTS times, then given up, so
 * that one bad message never holds up a consumer (the webhooks fan-out hands out one event at a
 * time) or spins for good. Counts the failure in `failures`, and forgets the message when given up.
 */
export function verdictOn(msg: JsMsg, err: unknown, failures: HandlingFailures): FailureVerdict {
  const message = err instanceof Error ? err.message : String(err)
  if (err instanceof UndecodableMessageError) {
    failures.forget(msg)
    return { retry: false, reason: err.reason }
  }
  const failed = isDependencyUnavailable(err) ? 0 : failures.add(msg)
  if (failed < MAX_HANDLING_ATTEMPTS) return { retry: true, failed }
  failures.forget(msg)
  return { retry: false, reason: `given up after ${failed} attempts: ${message}` }
}

/** A durable consumer's failed message settled by its verdict: handed back later, or terminated and recorded as poison. */
export async function settleFailed(msg: JsMsg, err: unknown, policy: FailedMessagePolicy): Promise<void> {
  const { consumer, poison, failures, log, retryMs } = policy
  const verdict = verdictOn(msg, err, failures)
  if (verdict.retry) {
    log.error({ err, subject: msg.subject, seq: msg.seq, failed: verdict.failed }, `${consumer}: could not handle a message; it will be delivered again`)
    msg.nak(retryMs)
    return
  }
  msg.term(verdict.reason)
  await poison.record({ stream: msg.info.stream, seq: msg.seq, subject: msg.subject, reason: verdict.reason }, consumer)
}

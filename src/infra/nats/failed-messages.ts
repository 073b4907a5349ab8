import type { JsMsg } from '@nats-io/jetstream'
import type { Logger } from 'pino'
import type { PoisonMessages } from '../mongo/poison-messages.js'
import { isDependencyUnavailable } from '../unavailable.js'
import { UndecodableMessageError } from './decode.js'

/** Deliveries of a message whose handling fails for a reason other than an outage, before it is given up. */
export const MAX_HANDLING_ATTEMPTS = 5

export interface FailedMessagePolicy {
  /** Who gives it up, as `mats projections status` names it (`webhooks:fan-out`). */
  readonly consumer: string
  readonly poison: PoisonMessages
  readonly log: Logger
  /** How much later a message comes back after a failure. */
  readonly retryMs: number
}

/**
 * What a durable consumer does with a message it could not handle. An outage of NATS or
 * MongoDB hands it back for later, for as long as it lasts. A message that is not an event
 * would fail the same way forever: it is terminated at once (the server never delivers it
 * again) and recorded as poison. Any other failure is retried MAX_HANDLING_ATTEMPTS times,
 * then terminated and recorded the same way, so that one bad message never holds up the
 * consumer (the webhooks fan-out hands out one event at a time) or spins for good.
 */
export async function settleFailed(msg: JsMsg, err: unknown, policy: FailedMessagePolicy): Promise<void> {
  const { consumer, poison, log, retryMs } = policy
  const attempts = msg.info.deliveryCount
  if (isDependencyUnavailable(err) || (!(err instanceof UndecodableMessageError) && attempts < MAX_HANDLING_ATTEMPTS)) {
    log.error({ err, subject: msg.subject, seq: msg.seq, attempts }, `${consumer}: could not handle a message; it will be delivered again`)
    return msg.nak(retryMs)
  }
  msg.term(err instanceof Error ? err.message : String(err))
  const reason = err instanceof UndecodableMessageError ? err.reason : `given up after ${attempts} attempts: ${err instanceof Error ? err.message : String(err)}`
  await poison.record({ stream: msg.info.stream, seq: msg.seq, subject: msg.subject, reason }, consumer)
}

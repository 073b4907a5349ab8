import type { JetStreamClient } from '@nats-io/jetstream'
import type { WebhookEventType } from '../../domain/webhooks/webhook.js'
import { isNoMessage } from './log-reader.js'
import { ATTEMPTS_KEPT, ATTEMPTS_STREAM, attemptsSubject } from './webhook-streams.js'
import { directBatch, type DirectReads } from './direct-batch.js'

/** One delivery attempt as GET /v1/webhooks/{id}/deliveries shows it. */
export interface DeliveryAttempt {
  /** The `webhook-id` header: the same on every attempt of one delivery. */
  readonly messageId: string
  readonly event: WebhookEventType
  readonly taskId: string
  readonly attempt: number
  /** The receiver's status, or null when there was none (timeout, refused address, connection error). */
  readonly statusCode: number | null
  readonly error: string | null
  readonly attemptedAt: string
  /** Whether another attempt follows (false once delivered or given up). */
  readonly willRetry: boolean
  /** Set on the attempt that paused the webhook (its timeouts in a row): deliveries wait until then (ADR 0027). Absent before it existed. */
  readonly pausedUntil?: string | null
}

/** The capped log of attempts: the stream keeps the last 100 per webhook (ADR 0025). */
export class WebhookAttempts {
  private readonly js: JetStreamClient

  constructor(private readonly nats: DirectReads & { readonly js: JetStreamClient }) {
    this.js = nats.js
  }

  async record(webhookId: string, attempt: DeliveryAttempt): Promise<void> {
    await this.js.publish(attemptsSubject(webhookId), JSON.stringify(attempt))
  }

  /** The webhook's attempts, newest first. */
  async newestFirst(webhookId: string): Promise<DeliveryAttempt[]> {
    const attempts: DeliveryAttempt[] = []
    try {
      const batch = await directBatch(this.nats, ATTEMPTS_STREAM, { seq: 1, next_by_subj: attemptsSubject(webhookId), batch: ATTEMPTS_KEPT })
      for (const msg of batch) attempts.push(msg.json<DeliveryAttempt>())
    } catch (err) {
      if (!isNoMessage(err)) throw err
    }
    return attempts.reverse()
  }
}

import type { WebhookEventType } from '../../src/domain/webhooks/webhook.js'

/**
 * One delivery to make: a task event for one webhook, its body frozen when the event was
 * fanned out, so that every attempt sends the same bytes under the same `webhook-id`.
 */
export interface DeliveryJob {
  readonly webhookId: string
  readonly accountId: string
  readonly taskId: string
  /** The `webhook-id` header: the task event's id. */
  readonly messageId: string
  readonly event: WebhookEventType
  readonly body: string
}

export function decodeJob(data: Uint8Array): DeliveryJob {
  return JSON.parse(new TextDecoder().decode(data)) as DeliveryJob
}

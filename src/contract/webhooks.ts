import { Type, type Static } from 'typebox'
import { MAX_URL_LENGTH, WEBHOOK_EVENT_TYPES } from '../domain/webhooks/webhook.js'
import { DateTime, HTTP_URL, Nullable, Uuid } from './common.js'

export const WebhookEventType = Type.Enum([...WEBHOOK_EVENT_TYPES], {
  description: "An event a webhook receives: task.* for a task's life, action.pending_approval when a proposed action awaits a decision, action.decided when it is approved or rejected",
})

export const Webhook = Type.Object(
  {
    id: Uuid,
    url: Type.String({ description: 'Where deliveries are POSTed' }),
    events: Type.Array(WebhookEventType),
    createdAt: DateTime,
    pausedUntil: Nullable(
      Type.String({
        format: 'date-time',
        description:
          'Set while deliveries are paused because attempts in a row got no answer in time (WEBHOOKS_PAUSE_AFTER_TIMEOUTS): they resume on their own at this time with one attempt, nothing is lost; null when not paused',
      }),
    ),
  },
  { title: 'Webhook' },
)

export const CreateWebhookBody = Type.Object(
  {
    url: Type.String({
      pattern: HTTP_URL,
      maxLength: MAX_URL_LENGTH,
      description: 'An https:// URL, or http:// to a public address; loopback and private addresses are refused unless the server allows them (WEBHOOKS_ALLOW_PRIVATE_URLS)',
    }),
    events: Type.Optional(Type.Array(WebhookEventType, { minItems: 1, uniqueItems: true, description: 'Default: all four task events' })),
  },
  { title: 'CreateWebhookBody', additionalProperties: false },
)
export type CreateWebhookBody = Static<typeof CreateWebhookBody>

export const CreatedWebhookResponse = Type.Object(
  {
    webhook: Webhook,
    secret: Type.String({
      pattern: '^whsec_',
      description: 'The Standard Webhooks signing secret (`whsec_` + base64 key). Shown only in this response: keep it to verify `webhook-signature`',
    }),
  },
  { title: 'CreatedWebhookResponse' },
)

export const RotatedSecretResponse = Type.Object(
  {
    webhook: Webhook,
    secret: Type.String({
      pattern: '^whsec_',
      description: 'The new signing secret (`whsec_` + base64 key). Shown only in this response: deliveries are signed with it from now on',
    }),
    previousSecretValidUntil: Type.String({
      format: 'date-time',
      description: 'Until then (24 h) every delivery carries a second signature, made with the secret this one replaces: switch receivers over before it',
    }),
  },
  { title: 'RotatedSecretResponse' },
)

export const ListWebhooksResponse = Type.Object({ webhooks: Type.Array(Webhook) }, { title: 'ListWebhooksResponse' })

export const WebhookParams = Type.Object({ webhookId: Type.String({ format: 'uuid', description: 'The webhook, as POST /v1/webhooks answered it' }) }, { additionalProperties: false })

export const Delivery = Type.Object(
  {
    webhookMessageId: Type.String({ description: 'The `webhook-id` header, the same on every attempt of one delivery (the task event id)' }),
    event: WebhookEventType,
    taskId: Uuid,
    attempt: Type.Integer({ minimum: 1, description: '1 for the first attempt, then each retry' }),
    statusCode: Nullable(Type.Integer({ description: "The receiver's HTTP status; null when none came back (timeout, connection error, refused address)" })),
    error: Nullable(Type.String()),
    willRetry: Type.Boolean({ description: 'Whether another attempt is scheduled' }),
    attemptedAt: DateTime,
    pausedUntil: Nullable(Type.String({ format: 'date-time', description: 'Set on the attempt that paused the webhook (timeouts in a row): deliveries wait until then' })),
  },
  { title: 'Delivery' },
)

export const ListDeliveriesResponse = Type.Object(
  {
    deliveries: Type.Array(Delivery, { description: 'The last 100 attempts, newest first' }),
  },
  { title: 'ListDeliveriesResponse' },
)

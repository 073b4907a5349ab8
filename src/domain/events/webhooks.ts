import { Type } from 'typebox'
import { WEBHOOK_EVENT_TYPES } from '../webhooks/webhook.js'

export const WebhookRegisteredData = Type.Object({
  url: Type.String({ maxLength: 2000, description: 'The receiver, an http:// or https:// URL without credentials or fragment.' }),
  events: Type.Array(Type.Enum([...WEBHOOK_EVENT_TYPES]), { minItems: 1, description: 'The public event types it receives.' }),
  encryptedSecret: Type.String({ description: "The signing secret under AES-256-GCM with the operator's WEBHOOKS_SECRET_KEY; never in plain text." }),
})
export const WebhookDeletedData = Type.Object({})

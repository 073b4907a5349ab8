import { Type } from 'typebox'
import { MAX_PREVIOUS_SECRETS_KEPT, WEBHOOK_EVENT_TYPES } from '../webhooks/webhook.js'
import { Nullable } from './common.js'

const SealedSecret = (description: string) =>
  Type.String({ description: `${description}, sealed with AES-256-GCM under the operator's WEBHOOKS_SECRET_KEY: \`v1.<key id>.<iv>.<ciphertext>.<tag>\`; never in plain text.` })

export const WebhookRegisteredData = Type.Object({
  url: Type.String({ maxLength: 2000, description: 'The receiver, an http:// or https:// URL without credentials or fragment.' }),
  events: Type.Array(Type.Enum([...WEBHOOK_EVENT_TYPES]), { minItems: 1, description: 'The public event types it receives.' }),
  encryptedSecret: SealedSecret('The signing secret'),
})
export const WebhookDeletedData = Type.Object({})
export const WebhookSecretRotatedData = Type.Object({
  encryptedSecret: SealedSecret('The new signing secret'),
  previousValidUntil: Type.String({ format: 'date-time', description: 'Until when deliveries are also signed with the secret this one replaces (24 h after the rotation).' }),
  previousKept: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_PREVIOUS_SECRETS_KEPT,
      description:
        'How many replaced secrets keep signing after this rotation (each until its own 24 h end), the one just replaced included; older ones stop at once. Absent in events from before it existed: 1.',
    }),
  ),
})
export const WebhookSecretResealedData = Type.Object({
  encryptedSecret: SealedSecret('The same signing secret as before'),
  previousEncryptedSecret: Nullable(Type.String(), {
    description: 'The secret the last rotation replaced, while it still signs, sealed again like encryptedSecret; null when there is none (or its 24 h are over).',
  }),
  previousEncryptedSecrets: Type.Optional(
    Type.Array(Nullable(Type.String()), {
      maxItems: MAX_PREVIOUS_SECRETS_KEPT,
      description:
        'Every secret rotations replaced, newest first, each sealed again, or null where its 24 h are over (dropped). Absent in events from before several were kept: previousEncryptedSecret alone.',
    }),
  ),
})

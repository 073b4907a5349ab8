import { Type } from 'typebox'
import { MAX_PREVIOUS_SECRETS_KEPT } from './domain/webhooks/webhook.js'
import { listOf } from './infra/typebox/list-pattern.js'

/** Base64 of exactly 32 bytes (43 characters and one `=`): an AES-256 key. */
const BASE64_KEY = '^[A-Za-z0-9+/]{43}=$'

/** The webhooks role's variables of Config (src/config.ts), documented in docs/configuration.md. */
export const WebhookSettingsSchema = {
  WEBHOOKS_SECRET_KEY: Type.Optional(
    Type.String({
      pattern: BASE64_KEY,
      description: 'Base64 of 32 random bytes (openssl rand -base64 32): the AES-256-GCM key webhook signing secrets are encrypted with at rest; webhooks are off without it. Never logged',
    }),
  ),
  WEBHOOKS_PREVIOUS_SECRET_KEYS: Type.String({
    pattern: listOf(BASE64_KEY.slice(1, -1)),
    default: '',
    description: 'Earlier WEBHOOKS_SECRET_KEY values, comma-separated: secrets encrypted with them can still be read after a key change',
  }),
  WEBHOOKS_ALLOW_PRIVATE_URLS: Type.Boolean({ default: false, description: 'Let webhook URLs reach loopback and private addresses (tests, laptops); never in production' }),
  WEBHOOKS_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 60_000, default: 10_000, description: 'How long one webhook delivery attempt may take; past it the attempt counts as failed' }),
  WEBHOOKS_RETRY_BASE_MS: Type.Integer({
    minimum: 10,
    maximum: 600_000,
    default: 5000,
    description: 'Delay before the first retry of a failed delivery; each further retry waits about twice as long (with jitter), up to WEBHOOKS_RETRY_MAX_DELAY_MS',
  }),
  WEBHOOKS_RETRY_MAX_DELAY_MS: Type.Integer({ minimum: 10, maximum: 86_400_000, default: 3_600_000, description: 'The longest wait between two attempts of one delivery' }),
  WEBHOOKS_RETRY_WINDOW_MS: Type.Integer({ minimum: 1000, default: 86_400_000, description: 'A delivery is retried until this long after its first attempt, then given up (24 h by default)' }),
  WEBHOOKS_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 1000, default: 32, description: 'Delivery attempts one webhooks process makes at once' }),
  WEBHOOKS_MAX_IN_FLIGHT_PER_ACCOUNT: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 8,
    description: "Delivery attempts in flight for one account, across every webhooks process: one account's slow receivers never take the others' slots",
  }),
  WEBHOOKS_MAX_IN_FLIGHT_PER_WEBHOOK: Type.Integer({ minimum: 1, maximum: 1000, default: 4, description: 'Delivery attempts in flight to one webhook, across every webhooks process' }),
  WEBHOOKS_PREVIOUS_SECRETS_KEPT: Type.Integer({
    minimum: 1,
    maximum: MAX_PREVIOUS_SECRETS_KEPT,
    default: 1,
    description: 'Secrets a webhook rotation keeps signing with, besides the new one, each for 24 h after the rotation that replaced it (older ones stop at once); at most 3',
  }),
  WEBHOOKS_PAUSE_AFTER_TIMEOUTS: Type.Integer({ minimum: 1, maximum: 1000, default: 5, description: 'Attempts in a row without an answer within WEBHOOKS_TIMEOUT_MS that pause a webhook' }),
  WEBHOOKS_PAUSE_MS: Type.Integer({
    minimum: 100,
    maximum: 86_400_000,
    default: 60_000,
    description: 'How long a webhook is paused the first time; each pause in a row lasts twice as long, up to WEBHOOKS_RETRY_MAX_DELAY_MS',
  }),
}

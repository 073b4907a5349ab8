import { randomBytes } from 'node:crypto'
import { Webhook } from 'standardwebhooks'
import type { Received } from '../fakes/webhook-receiver.js'

/** A fresh WEBHOOKS_SECRET_KEY. */
export const aSecretKey = () => randomBytes(32).toString('base64')

/** The service settings webhook tests run with: a key, loopback receivers allowed, fast retries. */
export const webhookEnv = (overrides: Record<string, string> = {}) => ({
  WEBHOOKS_SECRET_KEY: aSecretKey(),
  WEBHOOKS_ALLOW_PRIVATE_URLS: 'true',
  WEBHOOKS_RETRY_BASE_MS: '200',
  OFFLINE_AGENT_LATENCY_MS: '0',
  ...overrides,
})

export interface CreatedWebhook {
  readonly webhook: { id: string; url: string; events: string[]; createdAt: string }
  readonly secret: string
}

export interface Delivered {
  readonly type: string
  readonly timestamp: string
  readonly data: { task: { id: string; status: string } & Record<string, unknown> }
}

/** Verifies a request with the reference library, as a receiver would, and returns its payload; throws if the signature is wrong. */
export function verified<Payload = Delivered>(secret: string, request: Received): Payload {
  return new Webhook(secret).verify(request.body, request.headers) as Payload
}

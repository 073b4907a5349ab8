import { createHmac, randomBytes } from 'node:crypto'

/**
 * Standard Webhooks (standardwebhooks.com): the secret is `whsec_` and the base64 of the
 * key's bytes; each request carries `webhook-id`, `webhook-timestamp` (Unix seconds) and
 * `webhook-signature: v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<body>")>`.
 */
export const SECRET_PREFIX = 'whsec_'
const KEY_BYTES = 32

export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(KEY_BYTES).toString('base64')
}

export function signatureHeaders(secret: string, messageId: string, at: Date, body: string): Record<string, string> {
  const timestamp = String(Math.floor(at.getTime() / 1000))
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64')
  const signature = createHmac('sha256', key).update(`${messageId}.${timestamp}.${body}`).digest('base64')
  return { 'webhook-id': messageId, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` }
}

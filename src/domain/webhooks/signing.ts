import { createHmac, randomBytes } from 'node:crypto'

/**
 * Standard Webhooks (standardwebhooks.com): the secret is `whsec_` and the base64 of the
 * key's bytes; each request carries `webhook-id`, `webhook-timestamp` (Unix seconds) and
 * `webhook-signature: v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<body>")>`, one per
 * secret in use (two for 24 h after a rotation).
 */
export const SECRET_PREFIX = 'whsec_'
const KEY_BYTES = 32

export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(KEY_BYTES).toString('base64')
}

/**
 * The headers of one attempt, signed with each secret, space separated (Standard Webhooks:
 * a receiver accepts the request when any signature verifies with the secret it holds).
 */
export function signatureHeaders(secrets: readonly string[], messageId: string, at: Date, body: string): Record<string, string> {
  const timestamp = String(Math.floor(at.getTime() / 1000))
  const signatures = secrets.map((secret) => {
    const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64')
    return `v1,${createHmac('sha256', key).update(`${messageId}.${timestamp}.${body}`).digest('base64')}`
  })
  return { 'webhook-id': messageId, 'webhook-timestamp': timestamp, 'webhook-signature': signatures.join(' ') }
}

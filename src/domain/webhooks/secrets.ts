import { NotFoundError } from '../errors.js'
import type { WebhookEvent, WebhookSecrets, WebhookState } from './webhook.js'

/**
 * After a rotation the replaced secret signs too, for this long: receivers have a day to
 * switch, and every delivery meanwhile verifies with either (Standard Webhooks lets
 * `webhook-signature` carry several signatures, space separated). ADR 0028.
 */
export const PREVIOUS_SECRET_VALID_MS = 24 * 60 * 60 * 1000

export function decideRotateSecret(state: WebhookState, command: { readonly encryptedSecret: string; readonly now: Date }): WebhookEvent[] {
  if (state.status !== 'active') throw new NotFoundError('webhook not found')
  const previousValidUntil = new Date(command.now.getTime() + PREVIOUS_SECRET_VALID_MS).toISOString()
  return [{ type: 'WebhookSecretRotated', data: { encryptedSecret: command.encryptedSecret, previousValidUntil } }]
}

/**
 * The sealed secrets a delivery made at `now` is signed with, the current one first.
 * `previous` may be absent: read-model documents written before rotation existed lack it.
 */
export function secretsToSignWith(secrets: { readonly encryptedSecret: string; readonly previous?: WebhookSecrets['previous'] | undefined }, now: Date): string[] {
  const previous = secrets.previous
  return previous && Date.parse(previous.validUntil) > now.getTime() ? [secrets.encryptedSecret, previous.encryptedSecret] : [secrets.encryptedSecret]
}

/**
 * Sealing the secrets again under the operator's current key: `isCurrent` says whether a
 * sealed value already is, `reseal` seals it again. Nothing when all are current, or the
 * webhook is deleted (nothing opens its secret again): running it twice appends nothing more.
 */
export function decideResealSecret(state: WebhookState, command: { readonly now: Date; readonly isCurrent: (sealed: string) => boolean; readonly reseal: (sealed: string) => string }): WebhookEvent[] {
  if (state.status !== 'active') return []
  const [current, previous = null] = secretsToSignWith(state.secrets, command.now)
  if (current === undefined) return []
  if (command.isCurrent(current) && (previous === null || command.isCurrent(previous))) return []
  return [{ type: 'WebhookSecretResealed', data: { encryptedSecret: command.reseal(current), previousEncryptedSecret: previous === null ? null : command.reseal(previous) } }]
}

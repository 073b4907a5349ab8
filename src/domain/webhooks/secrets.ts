import { NotFoundError } from '../errors.js'
import { MAX_PREVIOUS_SECRETS_KEPT, previousSecretsOf, type PreviousSecret, type WebhookEvent, type WebhookState } from './webhook.js'

/**
 * After a rotation the replaced secret signs too, for this long: receivers have a day to
 * switch, and every delivery meanwhile verifies with either (Standard Webhooks lets
 * `webhook-signature` carry several signatures, space separated). ADR 0028.
 */
export const PREVIOUS_SECRET_VALID_MS = 24 * 60 * 60 * 1000

/**
 * A new secret. `previousKept` (WEBHOOKS_PREVIOUS_SECRETS_KEPT, 1 to 3) is how many replaced
 * secrets keep signing, each for its 24 h: with 1, rotating again within the day ends the
 * oldest at once; with 2 or 3, receivers that rotate several times a day keep verifying with
 * any secret of the last rotations. Recorded in the event, so replaying never depends on the setting.
 */
export function decideRotateSecret(state: WebhookState, command: { readonly encryptedSecret: string; readonly now: Date; readonly previousKept?: number }): WebhookEvent[] {
  if (state.status !== 'active') throw new NotFoundError('webhook not found')
  const previousValidUntil = new Date(command.now.getTime() + PREVIOUS_SECRET_VALID_MS).toISOString()
  const previousKept = Math.min(MAX_PREVIOUS_SECRETS_KEPT, Math.max(1, Math.floor(command.previousKept ?? 1)))
  return [{ type: 'WebhookSecretRotated', data: { encryptedSecret: command.encryptedSecret, previousValidUntil, previousKept } }]
}

/**
 * The sealed secrets a delivery made at `now` is signed with, the current one first, then the
 * replaced ones still valid, newest first. `previous` may be absent, or one object: read-model
 * documents written before rotation existed, or before several previous secrets were kept.
 */
export function secretsToSignWith(secrets: { readonly encryptedSecret: string; readonly previous?: readonly PreviousSecret[] | PreviousSecret | null | undefined }, now: Date): string[] {
  return [secrets.encryptedSecret, ...stillValid(previousSecretsOf(secrets.previous), now).map((previous) => previous.encryptedSecret)]
}

const stillValid = (previous: readonly PreviousSecret[], now: Date) => previous.filter((secret) => Date.parse(secret.validUntil) > now.getTime())

/**
 * Sealing the secrets again under the operator's current key: `isCurrent` says whether a
 * sealed value already is, `reseal` seals it again. Nothing when all are current, or the
 * webhook is deleted (nothing opens its secret again): running it twice appends nothing more.
 */
export function decideResealSecret(state: WebhookState, command: { readonly now: Date; readonly isCurrent: (sealed: string) => boolean; readonly reseal: (sealed: string) => string }): WebhookEvent[] {
  if (state.status !== 'active') return []
  const { encryptedSecret, previous } = state.secrets
  // Aligned with `previous`: null where a secret's 24 h are over (it is dropped, not sealed again).
  const inUse = previous.map((secret) => (Date.parse(secret.validUntil) > command.now.getTime() ? secret.encryptedSecret : null))
  if (command.isCurrent(encryptedSecret) && inUse.every((sealed) => sealed === null || command.isCurrent(sealed))) return []
  const previousEncryptedSecrets = inUse.map((sealed) => (sealed === null ? null : command.reseal(sealed)))
  return [
    {
      type: 'WebhookSecretResealed',
      data: { encryptedSecret: command.reseal(encryptedSecret), previousEncryptedSecret: previousEncryptedSecrets[0] ?? null, previousEncryptedSecrets },
    },
  ]
}

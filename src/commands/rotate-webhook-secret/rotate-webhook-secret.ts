import { decideRotateSecret } from '../../domain/webhooks/secrets.js'
import { generateWebhookSecret } from '../../domain/webhooks/signing.js'
import { Webhook } from '../../domain/webhooks/webhook.js'
import type { SecretBox } from '../../infra/crypto/secret-box.js'
import type { CommandContext } from '../context.js'
import { execute, type Issuer } from '../execute.js'

export interface RotatedSecret {
  /** Shown once, here; the log holds it only sealed. */
  readonly secret: string
  /** Until when deliveries are signed with the replaced secret as well. */
  readonly previousSecretValidUntil: string
}

/**
 * A new signing secret for the webhook. Loaded under the caller's account, so another
 * account's webhook is absent here and reported like a missing one (invariant 7).
 */
export async function rotateWebhookSecret(infra: CommandContext, box: SecretBox, input: { readonly accountId: string; readonly webhookId: string }, issuer: Issuer): Promise<RotatedSecret> {
  const secret = generateWebhookSecret()
  // How many replaced secrets keep signing: read now, recorded in the event (ADR 0028).
  const command = { encryptedSecret: box.seal(secret), now: infra.clock(), previousKept: infra.config.WEBHOOKS_PREVIOUS_SECRETS_KEPT }
  const { appended } = await execute(infra, Webhook, { accountId: input.accountId, aggregateId: input.webhookId }, (state) => decideRotateSecret(state, command), issuer)
  const rotated = appended[0]
  if (rotated?.type !== 'WebhookSecretRotated') throw new Error('rotation appended no WebhookSecretRotated')
  return { secret, previousSecretValidUntil: rotated.data.previousValidUntil }
}

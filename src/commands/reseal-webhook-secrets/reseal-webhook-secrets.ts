import { decideResealSecret } from '../../domain/webhooks/secrets.js'
import { Webhook } from '../../domain/webhooks/webhook.js'
import type { SecretBox } from '../../infra/crypto/secret-box.js'
import type { CommandContext } from '../context.js'
import { eventSubjectParts, eventTypeSubjects, streamOf } from '../../infra/nats/subjects.js'
import { execute, operator } from '../execute.js'

export interface ResealReport {
  /** Webhooks in the log, deleted ones included. */
  readonly webhooks: number
  /** Those whose secrets were sealed again (a WebhookSecretResealed each). */
  readonly resealed: number
  /** Those that could not be: a secret under a key the box does not hold, and why. */
  readonly failed: readonly { readonly webhookId: string; readonly error: string }[]
}

/**
 * Seals every live webhook's secrets again under the operator's current key, as events:
 * the log is the truth, and the old key can be dropped once this has run. Webhooks already
 * under the current key and deleted ones append nothing, so running it again is harmless.
 * The webhooks are found in the log itself (a subject per WebhookRegistered), not a read model.
 */
export async function resealWebhookSecrets(infra: CommandContext, box: SecretBox): Promise<ResealReport> {
  const info = await infra.jsm.streams.info(streamOf('webhook'), { subjects_filter: eventTypeSubjects('webhook', 'WebhookRegistered') })
  const keys = Object.keys(info.state.subjects ?? {}).map(aggregateKeyOf)
  let resealed = 0
  const failed: { webhookId: string; error: string }[] = []
  for (const key of keys) {
    const command = { now: infra.clock(), isCurrent: (sealed: string) => box.isCurrent(sealed), reseal: (sealed: string) => box.reseal(sealed) }
    try {
      const { appended } = await execute(infra, Webhook, key, (state) => decideResealSecret(state, command), operator())
      if (appended.length > 0) resealed++
    } catch (err) {
      failed.push({ webhookId: key.aggregateId, error: err instanceof Error ? err.message : String(err) })
    }
  }
  return { webhooks: keys.length, resealed, failed }
}

/** `mats.webhook.<accountId>.<webhookId>.WebhookRegistered` */
function aggregateKeyOf(subject: string): { accountId: string; aggregateId: string } {
  const { accountId, aggregateId } = eventSubjectParts(subject)
  if (!accountId || !aggregateId) throw new Error(`not a webhook event subject: ${subject}`)
  return { accountId, aggregateId }
}

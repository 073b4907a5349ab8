import { decideDeleteWebhook, Webhook } from '../../domain/webhooks/webhook.js'
import type { CommandContext } from '../context.js'
import { execute, type Issuer } from '../execute.js'

/**
 * Deleting stops deliveries: the deliverer drops the jobs of a webhook that is gone. The
 * aggregate is loaded under the caller's account, so another account's webhook is absent
 * here and reported exactly like a missing one (invariant 7).
 */
export async function deleteWebhook(infra: CommandContext, input: { readonly accountId: string; readonly webhookId: string }, issuer: Issuer): Promise<void> {
  await execute(infra, Webhook, { accountId: input.accountId, aggregateId: input.webhookId }, decideDeleteWebhook, issuer)
}

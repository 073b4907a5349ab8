import { activeWebhooks, ownedWebhook, type WebhookDoc } from '../../projections/index.js'
import type { Issuer } from '../commands/execute.js'
import { deleteWebhook } from '../commands/delete-webhook/delete-webhook.js'
import { registerWebhook, type RegisteredWebhook } from '../commands/register-webhook/register-webhook.js'
import { rotateWebhookSecret } from '../commands/rotate-webhook-secret/rotate-webhook-secret.js'
import { NotFoundError } from '../domain/errors.js'
import type { CreateWebhookBody } from '../contract/webhooks.js'
import type { SecretBox } from '../infra/crypto/secret-box.js'
import type { AppContext } from '../app-context.js'
import { WebhookAttempts } from '../infra/nats/webhook-attempts.js'

/** The webhook operations of the v1 API: each takes the validated request and returns the response body. */
export function createWebhook(infra: AppContext, box: SecretBox, accountId: string, body: CreateWebhookBody, issuer: Issuer): Promise<RegisteredWebhook> {
  return registerWebhook(infra, box, { accountId, url: body.url, events: body.events }, issuer)
}

export async function listWebhooks(infra: AppContext, accountId: string) {
  return { webhooks: (await activeWebhooks(infra.readModels, accountId)).map(webhookView) }
}

export async function removeWebhook(infra: AppContext, accountId: string, webhookId: string, issuer: Issuer): Promise<void> {
  await deleteWebhook(infra, { accountId, webhookId }, issuer)
}

/** The new secret, shown once like at creation; the old one still signs for 24 h. */
export async function rotateSecret(infra: AppContext, box: SecretBox, accountId: string, webhookId: string, issuer: Issuer) {
  const rotated = await rotateWebhookSecret(infra, box, { accountId, webhookId }, issuer)
  const doc = await ownedWebhook(infra.readModels, accountId, webhookId)
  if (!doc) throw new NotFoundError('webhook not found')
  return { webhook: webhookView(doc), ...rotated }
}

export async function listDeliveries(infra: AppContext, accountId: string, webhookId: string) {
  if (!(await ownedWebhook(infra.readModels, accountId, webhookId))) throw new NotFoundError('webhook not found')
  const attempts = await new WebhookAttempts(infra.js, infra.jsm).newestFirst(webhookId)
  return {
    deliveries: attempts.map(({ messageId, event, taskId, attempt, statusCode, error, willRetry, attemptedAt }) => ({
      webhookMessageId: messageId,
      event,
      taskId,
      attempt,
      statusCode,
      error,
      willRetry,
      attemptedAt,
    })),
  }
}

/** Never the secret, not even encrypted. */
function webhookView(doc: WebhookDoc) {
  return { id: doc._id, url: doc.url, events: [...doc.events], createdAt: doc.createdAt }
}

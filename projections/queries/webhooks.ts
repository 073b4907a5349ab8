import type { ReadModels } from '../engine/read-models.js'
import type { Stored } from '../engine/projection.js'
import { webhooksProjection, type WebhookDoc } from '../read-models/webhooks.js'

const collection = (readModels: ReadModels) => readModels.collection<WebhookDoc>(webhooksProjection)

/** The account's webhooks that are not deleted, newest first (an account has at most a few dozen). */
export async function activeWebhooks(readModels: ReadModels, accountId: string): Promise<Stored<WebhookDoc>[]> {
  return collection(readModels).find({ accountId, deletedAt: null }).sort({ createdAt: -1, _id: -1 }).toArray()
}

/** One webhook, if it exists, is not deleted and belongs to the account (checked in code: `_id` lookups are the fast ones, ADR 0013). */
export async function ownedWebhook(readModels: ReadModels, accountId: string, webhookId: string): Promise<Stored<WebhookDoc> | null> {
  const doc = await collection(readModels).findOne({ _id: webhookId })
  return doc && doc.accountId === accountId && doc.deletedAt === null ? doc : null
}

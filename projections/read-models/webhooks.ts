import type { Recorded } from '../../src/domain/message.js'
import { previousSecretsOf, secretsAfter, type PreviousSecret, type WebhookEvent, type WebhookEventType } from '../../src/domain/webhooks/webhook.js'
import { defineProjection } from '../engine/projection.js'

export interface WebhookDoc {
  readonly _id: string
  readonly accountId: string
  readonly url: string
  readonly events: readonly WebhookEventType[]
  /** AES-256-GCM, as in the event: the deliverer opens it to sign (src/infra/crypto/secret-box.ts). */
  readonly encryptedSecret: string
  /**
   * The secrets rotations replaced, newest first, sealed likewise, each with when it stops signing.
   * Absent in documents written before rotation existed; one object (or null) in those written
   * before several were kept: read with `previousSecretsOf`.
   */
  readonly previous?: readonly PreviousSecret[] | PreviousSecret | null | undefined
  readonly createdAt: string
  readonly deletedAt: string | null
}

/** An account's webhooks; read by the API (list, ownership) and by the deliverer (who to send a task event to). */
export const webhooksProjection = defineProjection<WebhookDoc, Recorded<WebhookEvent>>({
  name: 'webhooks',
  stream: 'MATS_WEBHOOKS',
  canHandle: ['WebhookRegistered', 'WebhookDeleted', 'WebhookSecretRotated', 'WebhookSecretResealed'],
  indexes: [{ key: { accountId: 1, createdAt: -1, _id: -1 }, name: 'by_account_newest' }],
  inline: true,
  startedBy: ['WebhookRegistered'],
  docId: (event) => event.aggregateId,
  evolve(doc, event) {
    switch (event.type) {
      case 'WebhookRegistered': {
        const { url, events, encryptedSecret } = event.data
        return { _id: event.aggregateId, accountId: event.accountId, url, events, encryptedSecret, previous: [], createdAt: event.occurredAt, deletedAt: null }
      }
      case 'WebhookDeleted':
        if (!doc) throw new Error(`WebhookDeleted before WebhookRegistered for ${event.aggregateId}`)
        return { ...doc, deletedAt: event.occurredAt }
      case 'WebhookSecretRotated':
      case 'WebhookSecretResealed': {
        if (!doc) throw new Error(`${event.type} before WebhookRegistered for ${event.aggregateId}`)
        return { ...doc, ...secretsAfter({ encryptedSecret: doc.encryptedSecret, previous: previousSecretsOf(doc.previous) }, event) }
      }
    }
  },
})

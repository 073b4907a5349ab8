import type { ApiKeyEvent } from '../../src/domain/accounts/api-key.js'
import type { Recorded } from '../../src/domain/message.js'
import { defineProjection } from '../engine/projection.js'

export interface ApiKeyDoc {
  readonly _id: string
  readonly accountId: string
  readonly name: string
  readonly keyHash: string
  readonly keyPrefix: string
  readonly createdAt: string
  readonly expiresAt: string | null
  readonly revokedAt: string | null
}

export const apiKeysProjection = defineProjection<ApiKeyDoc, Recorded<ApiKeyEvent>>({
  name: 'api_keys',
  stream: 'MATS_ACCOUNTS',
  canHandle: ['ApiKeyCreated', 'ApiKeyRevoked'],
  indexes: [
    { key: { keyHash: 1 }, name: 'by_hash' },
    { key: { accountId: 1, createdAt: -1 }, name: 'by_account' },
  ],
  inline: true,
  startedBy: ['ApiKeyCreated'],
  docId: (event) => event.aggregateId,
  evolve(doc, event) {
    switch (event.type) {
      case 'ApiKeyCreated': {
        const { name, keyHash, keyPrefix, expiresAt } = event.data
        return { _id: event.aggregateId, accountId: event.accountId, name, keyHash, keyPrefix, expiresAt, createdAt: event.occurredAt, revokedAt: null }
      }
      case 'ApiKeyRevoked':
        if (!doc) throw new Error(`ApiKeyRevoked before ApiKeyCreated for ${event.aggregateId}`)
        return { ...doc, revokedAt: event.occurredAt }
    }
  },
})

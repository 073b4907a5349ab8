import { Type } from 'typebox'
import { Micros, Nullable, Sha256Hex } from './common.js'

const AccountName = Type.String({ minLength: 1, maxLength: 120 })

export const AccountCreatedData = Type.Object({ name: AccountName, monthlyBudgetMicros: Micros })
export const AccountBudgetChangedData = Type.Object({ monthlyBudgetMicros: Micros })

/** The key itself never appears in an event: only its SHA-256 and a short display prefix. */
export const ApiKeyCreatedData = Type.Object({
  name: AccountName,
  keyHash: Sha256Hex('SHA-256 of the key, hex. The key itself is never in an event.'),
  keyPrefix: Type.String({ pattern: '^mats_[A-Za-z0-9_-]{8}$', description: 'The first 13 characters of the key, for display.' }),
  expiresAt: Nullable(Type.String({ format: 'date-time' })),
})
export const ApiKeyRevokedData = Type.Object({ reason: Nullable(Type.String(), { description: 'Why, when given (`mats keys revoke --reason`).' }) })

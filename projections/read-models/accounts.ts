import type { AccountEvent } from '../../src/domain/accounts/account.js'
import type { Recorded } from '../../src/domain/message.js'
import { defineProjection } from '../engine/projection.js'

export interface AccountDoc {
  readonly _id: string
  readonly name: string
  readonly monthlyBudgetMicros: number
  readonly createdAt: string
  readonly updatedAt: string
}

export const accountsProjection = defineProjection<AccountDoc, Recorded<AccountEvent>>({
  name: 'accounts',
  stream: 'MATS_ACCOUNTS',
  canHandle: ['AccountCreated', 'AccountBudgetChanged'],
  indexes: [],
  inline: true,
  startedBy: ['AccountCreated'],
  docId: (event) => event.aggregateId,
  evolve(doc, event) {
    switch (event.type) {
      case 'AccountCreated':
        return { _id: event.aggregateId, ...event.data, createdAt: event.occurredAt, updatedAt: event.occurredAt }
      case 'AccountBudgetChanged':
        if (!doc) throw new Error(`AccountBudgetChanged before AccountCreated for ${event.aggregateId}`)
        return { ...doc, monthlyBudgetMicros: event.data.monthlyBudgetMicros, updatedAt: event.occurredAt }
    }
  },
})

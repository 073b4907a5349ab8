import type { Recorded } from '../../src/domain/message.js'
import type { SessionEvent } from '../../src/domain/sessions/session.js'
import { defineProjection } from '../engine/projection.js'

export interface SessionDoc {
  readonly _id: string
  readonly accountId: string
  readonly name: string
  readonly companyName: string | null
  readonly companyUrl: string | null
  readonly industry: string | null
  readonly targetAudience: string | null
  readonly createdAt: string
}

export const sessionsProjection = defineProjection<SessionDoc, Recorded<SessionEvent>>({
  name: 'sessions',
  stream: 'MATS_SESSIONS',
  canHandle: ['SessionCreated'],
  // Newest first per account; `_id` breaks ties between sessions created in the same millisecond.
  indexes: [{ key: { accountId: 1, createdAt: -1, _id: -1 }, name: 'by_account_newest' }],
  inline: true,
  docId: (event) => event.aggregateId,
  evolve(_doc, event) {
    switch (event.type) {
      case 'SessionCreated':
        return { _id: event.aggregateId, accountId: event.accountId, ...event.data, createdAt: event.occurredAt }
    }
  },
})

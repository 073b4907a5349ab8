import type { Recorded } from '../../src/domain/message.js'
import { DEFAULT_AUTONOMY, type Autonomy } from '../../src/domain/sessions/autonomy.js'
import type { SessionEvent } from '../../src/domain/sessions/session.js'
import { defineProjection, foldHistory } from '../engine/projection.js'

export interface SessionDoc {
  readonly _id: string
  readonly accountId: string
  readonly name: string
  readonly companyName: string | null
  readonly companyUrl: string | null
  readonly industry: string | null
  readonly targetAudience: string | null
  /** Absent on documents projected before sessions had an autonomy (until a rebuild): the default applies. */
  readonly autonomy?: Autonomy
  /** How many durable facts runs in this session have learned (absent counts as 0, as above). */
  readonly factsLearned?: number
  readonly createdAt: string
}

export const sessionsProjection = defineProjection<SessionDoc, Recorded<SessionEvent>>({
  name: 'sessions',
  stream: 'MATS_SESSIONS',
  canHandle: ['SessionCreated', 'SessionAutonomyChanged', 'SessionFactLearned'],
  // Newest first per account; `_id` breaks ties between sessions created in the same millisecond.
  indexes: [{ key: { accountId: 1, createdAt: -1, _id: -1 }, name: 'by_account_newest' }],
  inline: true,
  startedBy: ['SessionCreated'],
  docId: (event) => event.aggregateId,
  evolve(doc, event) {
    if (event.type === 'SessionCreated') {
      const { name, companyName, companyUrl, industry, targetAudience, autonomy } = event.data
      return {
        _id: event.aggregateId,
        accountId: event.accountId,
        name,
        companyName,
        companyUrl,
        industry,
        targetAudience,
        autonomy: autonomy ?? DEFAULT_AUTONOMY,
        factsLearned: 0,
        createdAt: event.occurredAt,
      }
    }
    if (!doc) throw new Error(`${event.type} before SessionCreated for ${event.aggregateId}`)
    switch (event.type) {
      case 'SessionAutonomyChanged':
        return { ...doc, autonomy: event.data.autonomy }
      case 'SessionFactLearned':
        return { ...doc, factsLearned: (doc.factsLearned ?? 0) + 1 }
    }
  },
})

/** The same document folded straight from the log: what the command side answers with. */
export const sessionDocFromHistory = (events: readonly Recorded<SessionEvent>[]): SessionDoc | null => foldHistory<SessionDoc>(sessionsProjection, events)

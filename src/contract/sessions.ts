import { Type, type Static } from 'typebox'
import { AUTONOMY_LEVELS } from '../domain/sessions/autonomy.js'
import { DateTime, HTTP_URL, NOT_BLANK, Nullable, PageQuery, Pagination, Uuid } from './common.js'

export const Autonomy = Type.Enum([...AUTONOMY_LEVELS], {
  description:
    'What agents may do on live platforms: `draft-only` keeps write actions as drafts, `approval-required` (the default) records them as pending approvals, `autonomous` lets connected platforms be changed',
})

export const Session = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    companyName: Type.Optional(Nullable(Type.String())),
    companyUrl: Type.Optional(Nullable(Type.String())),
    industry: Nullable(Type.String({ description: 'As given at creation' })),
    targetAudience: Nullable(Type.String({ description: 'As given at creation' })),
    autonomy: Autonomy,
    factsLearned: Type.Integer({ minimum: 0, description: 'Durable facts about the company that runs in this session have learned; later runs receive them' }),
    createdAt: DateTime,
  },
  { title: 'Session' },
)

export const CreateSessionBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 120, pattern: NOT_BLANK, description: 'Not blank' }),
    companyName: Type.Optional(Type.String({ maxLength: 200 })),
    companyUrl: Type.Optional(Type.String({ format: 'uri', pattern: HTTP_URL, maxLength: 500, description: 'An http:// or https:// URL' })),
    industry: Type.Optional(Type.String({ maxLength: 100 })),
    targetAudience: Type.Optional(Type.String({ maxLength: 300 })),
    autonomy: Type.Optional(Autonomy),
  },
  { title: 'CreateSessionBody', additionalProperties: false },
)
export type CreateSessionBody = Static<typeof CreateSessionBody>

/** What of a session can change after its creation: its autonomy (ADR 0016); the company context is as given at creation. */
export const UpdateSessionBody = Type.Object({ autonomy: Autonomy }, { title: 'UpdateSessionBody', additionalProperties: false })
export type UpdateSessionBody = Static<typeof UpdateSessionBody>

/** update_session (MCP): the session and the change, in one object. */
export const UpdateSessionInput = Type.Object({ sessionId: Uuid, autonomy: Autonomy }, { additionalProperties: false })

export const ListSessionsQuery = Type.Object(PageQuery, { additionalProperties: false })

export const SessionParams = Type.Object({ sessionId: Type.String({ format: 'uuid', description: 'The session, as POST /v1/sessions answered it' }) }, { additionalProperties: false })

export const SessionResponse = Type.Object({ session: Session }, { title: 'SessionResponse' })
export const ListSessionsResponse = Type.Object({ sessions: Type.Array(Session), pagination: Pagination }, { title: 'ListSessionsResponse' })

import { Type, type Static } from 'typebox'
import { DateTime, Nullable, PageQuery, Pagination, Uuid } from './common.js'

export const Session = Type.Object({
  id: Uuid,
  name: Type.String(),
  companyName: Type.Optional(Nullable(Type.String())),
  companyUrl: Type.Optional(Nullable(Type.String())),
  createdAt: DateTime,
})

export const CreateSessionBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 120 }),
    companyName: Type.Optional(Type.String({ maxLength: 200 })),
    companyUrl: Type.Optional(Type.String({ format: 'uri', maxLength: 500 })),
    industry: Type.Optional(Type.String({ maxLength: 100 })),
    targetAudience: Type.Optional(Type.String({ maxLength: 300 })),
  },
  { additionalProperties: false },
)
export type CreateSessionBody = Static<typeof CreateSessionBody>

export const ListSessionsQuery = Type.Object(PageQuery, { additionalProperties: false })

export const SessionResponse = Type.Object({ session: Session })
export const ListSessionsResponse = Type.Object({ sessions: Type.Array(Session), pagination: Pagination })

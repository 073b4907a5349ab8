import { Type } from 'typebox'
import { DateTime, Nullable, Uuid } from './common.js'

export const ApiKeyInfo = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    keyPrefix: Type.String(),
    createdAt: DateTime,
    lastUsedAt: Type.Optional(Nullable(DateTime)),
    expiresAt: Type.Optional(Nullable(DateTime)),
  },
  { title: 'ApiKeyInfo' },
)

export const MeResponse = Type.Object({ key: ApiKeyInfo }, { title: 'MeResponse' })

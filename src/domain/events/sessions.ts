import { Type } from 'typebox'
import { Autonomy, Nullable, UuidOf } from './common.js'

export const CompanyProfile = {
  companyName: Nullable(Type.String({ maxLength: 200 })),
  companyUrl: Nullable(Type.String({ format: 'uri', maxLength: 500 })),
  industry: Nullable(Type.String({ maxLength: 100 })),
  targetAudience: Nullable(Type.String({ maxLength: 300 })),
}

export const SessionCreatedData = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 120 }),
  ...CompanyProfile,
  // Optional in v1 for good: sessions created before autonomy existed lack it (see index.ts).
  autonomy: Type.Optional(
    Type.Enum(Autonomy.enum, {
      description: "Set on every session created since autonomy exists (the request's, else approval-required). Missing on older sessions, which have approval-required.",
    }),
  ),
})
export const SessionAutonomyChangedData = Type.Object({
  autonomy: Type.Enum(Autonomy.enum, { description: 'The new level.' }),
  previous: Type.Enum(Autonomy.enum, { description: 'The level it replaces.' }),
})
export const SessionFactLearnedData = Type.Object({
  fact: Type.String({ minLength: 1, maxLength: 300, description: 'One durable fact about the company, trimmed, inner whitespace collapsed.' }),
  taskId: UuidOf('The completed task that learned it.'),
})

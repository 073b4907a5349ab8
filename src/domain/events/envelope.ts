import { Type } from 'typebox'
import { Nullable, Uuid } from './common.js'

/** The envelope every event shares (src/domain/message.ts), as documented in docs/asyncapi.yaml. */
export const Metadata = Type.Object(
  {
    correlationId: Type.String({
      description:
        "The HTTP request id (x-request-id), a fresh uuid for an operator command, or the task id for a worker's events (the supervisor's task id for the events of a delegated task run beside it, its TaskCreated included).",
    }),
    causationId: Nullable(Type.String(), { description: 'Reserved for the event that caused this one; null on every event today.' }),
    keyId: Nullable(Uuid, { description: 'The API key id that issued the request; null for operator commands and worker events.' }),
  },
  { additionalProperties: false },
)

export const Envelope = Type.Object(
  {
    id: Uuid,
    type: Type.String({ description: 'Past-tense event type; also the last subject token.' }),
    version: Type.Integer({
      minimum: 1,
      description: 'Schema version of `data` for this type; bumped on incompatible change. Readers upcast older versions on read.',
    }),
    occurredAt: Type.String({ format: 'date-time' }),
    accountId: Uuid,
    aggregateId: Uuid,
    data: Type.Object({}),
    metadata: Metadata,
  },
  { description: 'Shared by every event.' },
)

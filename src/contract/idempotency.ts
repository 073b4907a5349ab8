import { Type, type TSchema } from 'typebox'
import { PRINTABLE_ASCII } from './common.js'
import { errorSchema } from './errors.js'

export const IDEMPOTENCY_KEY_MAX = 255
export const REPLAYED_HEADER = 'idempotent-replayed'

/** The request header of draft-ietf-httpapi-idempotency-key-header, on the POSTs that create. */
export const IdempotencyKeyHeader = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: IDEMPOTENCY_KEY_MAX,
      pattern: PRINTABLE_ASCII,
      description:
        'Makes a retry safe: the same key with the same body within 24 h answers the first response again, ' +
        'with Idempotent-Replayed: true, and creates nothing. Scoped to the account; a UUID is a good key; ' +
        'a structured-field string ("...") is read without its quotes.',
    }),
  ),
})

/** Declares `Idempotent-Replayed` on a success response schema. */
export function replayable<T extends TSchema>(schema: T): T {
  return {
    ...schema,
    headers: {
      [REPLAYED_HEADER]: Type.Literal('true', { description: 'Present when this is the stored answer to an earlier request with the same Idempotency-Key' }),
    },
  }
}

/** The 409 of a route whose only conflict is a request in flight with the same key. */
export const IdempotencyInFlight = errorSchema(409, 'A request with the same Idempotency-Key is still in flight', { codes: ['idempotency_key_in_flight'], title: 'IdempotencyInFlightError' })

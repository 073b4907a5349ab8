import { Type, type Static, type TSchema } from 'typebox'
import { AUTONOMY_LEVELS } from '../sessions/autonomy.js'

/**
 * Building blocks of the event data schemas. The named ones become shared entries of
 * docs/asyncapi.yaml `components.schemas` (see SHARED_SCHEMAS in index.ts). Objects allow
 * fields they do not name: fields are added to `data` without a version change (docs/events.md).
 */
export const Nullable = <T extends TSchema>(schema: T, options: { description?: string } = {}) => Type.Union([schema, Type.Null()], options)

export const Uuid = Type.String({ format: 'uuid' })
export const Micros = Type.Integer({ minimum: 0, description: 'An amount of money in micro-USD (1 USD = 1 000 000).' })
/** A uuid field that says what it identifies. */
export const UuidOf = (description: string) => Type.String({ format: 'uuid', description })
export const Sha256Hex = (description: string) => Type.String({ pattern: '^[0-9a-f]{64}$', description })

export const Autonomy = Type.Enum([...AUTONOMY_LEVELS], {
  description:
    "How far a session lets its agents act on live platforms; agents only propose write actions. draft-only keeps each as a draft; approval-required (the default) records it as awaiting a person's approval; autonomous lets a platform connector carry it out.",
})

/**
 * An event's data as handlers read it: the schema's type, immutable all the way down
 * (events are facts; nothing edits one in place).
 */
export type EventData<S extends TSchema> = Immutable<Static<S>>
type Immutable<T> = T extends readonly (infer E)[] ? readonly Immutable<E>[] : T extends object ? { readonly [K in keyof T]: Immutable<T[K]> } : T

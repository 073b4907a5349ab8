import { type TSchema, Type } from 'typebox'
import { Value } from 'typebox/value'

export interface LossyConversion {
  readonly key: string
  readonly text: string
}

/**
 * Converts a flat record of text (environment variables, query strings, path
 * parameters) to the schema's types, refusing conversions that lose information:
 * TypeBox would read `2.5` or `0x1F` as an integer 2 or 31. `raw` is left untouched.
 */
export function convertText(schema: TSchema, raw: Record<string, unknown>): { value: unknown; lossy: LossyConversion[] } {
  const value = Value.Convert(schema, { ...raw }) as unknown
  const lossy: LossyConversion[] = []
  if (typeof value === 'object' && value !== null) {
    const converted = value as Record<string, unknown>
    for (const [key, text] of Object.entries(raw)) {
      const after = converted[key]
      if (typeof text === 'string' && typeof after === 'number' && String(after) !== text) lossy.push({ key, text })
    }
  }
  return { value, lossy }
}

/**
 * Whether converting text to `schema` can change anything. Not for an object whose
 * properties are all text and that admits no others but text (the Idempotency-Key header's):
 * every request would otherwise pay for walking its headers (measured: 2.5 % of an api
 * process's CPU per POST /v1/tasks).
 */
export function convertsText(schema: TSchema): boolean {
  if (!Type.IsObject(schema)) return true
  const others: unknown = Reflect.get(schema, 'additionalProperties')
  const othersAreText = others === undefined || typeof others === 'boolean' || Type.IsString(others)
  return !othersAreText || !Object.values(schema.properties).every((property) => Type.IsString(property))
}

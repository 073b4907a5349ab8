import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify'
import type { TSchema } from 'typebox'
import { Compile } from 'typebox/compile'
import { Value } from 'typebox/value'

/**
 * TypeBox validation for every route. Bodies are checked as sent: no coercion, so
 * `"2"` for a number is a 400. Query strings and path parameters arrive as text and
 * are converted, but only losslessly: `limit=2.5` or `limit=010` is refused rather
 * than read as 2 or 10.
 */
export const validatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  const check = Compile(schema)
  return (value: unknown) => {
    // Value.Convert converts in place, so the text as sent is kept aside first.
    const raw = httpPart === 'body' || !isRecord(value) ? value : { ...value }
    const converted = httpPart === 'body' ? value : Value.Convert(schema, value)
    const lossy = httpPart === 'body' ? [] : lossyConversions(raw, converted)
    if (lossy.length > 0) return { error: lossy }
    if (check.Check(converted)) return { value: converted }
    return { error: check.Errors(converted) as FastifySchemaValidationError[] }
  }
}

function lossyConversions(raw: unknown, converted: unknown): FastifySchemaValidationError[] {
  if (!isRecord(raw) || !isRecord(converted)) return []
  const errors: FastifySchemaValidationError[] = []
  for (const [key, before] of Object.entries(raw)) {
    const after = converted[key]
    if (typeof before === 'string' && typeof after === 'number' && String(after) !== before) {
      errors.push({ keyword: 'type', instancePath: `/${key}`, schemaPath: '#', params: { type: 'number' }, message: `must be a number written plainly (got "${before}")` })
    }
  }
  return errors
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

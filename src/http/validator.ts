import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify'
import type { TSchema } from 'typebox'
import { Compile } from 'typebox/compile'
import { isRecord } from '../domain/is-record.js'
import { convertsText, convertText } from '../infra/typebox/convert-text.js'

/**
 * TypeBox validation for every route. Bodies are checked as sent: no coercion, so
 * `"2"` for a number is a 400. Query strings and path parameters arrive as text and
 * are converted, but only losslessly: `limit=2.5` or `limit=010` is refused rather
 * than read as 2 or 10.
 */
export const validatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  const check = Compile(schema)
  const converts = httpPart !== 'body' && convertsText(schema)
  return (input: unknown) => {
    let value = input
    if (converts && isRecord(input)) {
      const converted = convertText(schema, input)
      if (converted.lossy.length > 0) return { error: converted.lossy.map(lossyError) }
      value = converted.value
    }
    if (check.Check(value)) return { value }
    return { error: check.Errors(value) as FastifySchemaValidationError[] }
  }
}

function lossyError({ key, text }: { key: string; text: string }): FastifySchemaValidationError {
  return { keyword: 'type', instancePath: `/${key}`, schemaPath: '#', params: { type: 'number' }, message: `must be a number written plainly (got "${text}")` }
}

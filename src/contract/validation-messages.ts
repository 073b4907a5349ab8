import type { FastifySchemaValidationError } from 'fastify'
import { PATTERN_MESSAGES } from './common.js'

type Part = 'body' | 'querystring' | 'params' | 'headers' | string

/** `body.name: must NOT have more than 120 characters`: the field first, as the spec asks. */
export function describeValidation(errors: readonly FastifySchemaValidationError[], part: Part): string {
  const prefix = part === 'querystring' ? 'query' : part
  const messages: string[] = []
  const allowedAt = literalsByPath(errors)
  for (const e of errors) {
    // TypeBox reports an unknown property twice; the additionalProperties entry names it.
    if (e.keyword === 'boolean') continue
    const path = prefix + e.instancePath.replaceAll('/', '.')
    const allowed = allowedAt.get(e.instancePath)
    // A union of literals fails once per member and once as a whole: one message lists them all.
    const inUnion = e.keyword === 'anyOf' || e.schemaPath.includes('/anyOf/')
    const described = allowed && inUnion ? [`${path}: ${oneOf(allowed)}`] : describeOne(path, e)
    for (const message of described) if (!messages.includes(message)) messages.push(message)
  }
  return messages.slice(0, 3).join('; ') || `${prefix}: invalid`
}

function describeOne(path: string, e: FastifySchemaValidationError): string[] {
  const params = e.params as Record<string, unknown>
  if (e.keyword === 'required') {
    return namesIn(params.requiredProperties ?? params.missingProperty).map((name) => `${path}.${name}: is required`)
  }
  if (e.keyword === 'additionalProperties') {
    return namesIn(params.additionalProperties ?? params.additionalProperty).map((name) => `${path}.${name}: is not a known field`)
  }
  // The caller can only fix a bad enum value knowing the good ones.
  if (e.keyword === 'enum' && Array.isArray(params.allowedValues)) return [`${path}: ${oneOf(params.allowedValues)}`]
  if (e.keyword === 'const' && 'allowedValue' in params) return [`${path}: ${oneOf([params.allowedValue])}`]
  const patternMessage = e.keyword === 'pattern' ? PATTERN_MESSAGES[String(params.pattern)] : undefined
  return [`${path}: ${patternMessage ?? e.message}`]
}

/** The literals each failing value could have been (`const` errors), by instance path. */
function literalsByPath(errors: readonly FastifySchemaValidationError[]): Map<string, unknown[]> {
  const allowed = new Map<string, unknown[]>()
  for (const e of errors) {
    const params = e.params as Record<string, unknown>
    if (e.keyword !== 'const' || !('allowedValue' in params)) continue
    allowed.set(e.instancePath, [...(allowed.get(e.instancePath) ?? []), params.allowedValue])
  }
  return allowed
}

function oneOf(values: readonly unknown[]): string {
  const listed = values.map((value) => (typeof value === 'string' ? value : JSON.stringify(value))).join(', ')
  return values.length === 1 ? `must be ${listed}` : `must be one of ${listed}`
}

function namesIn(value: unknown): string[] {
  return (Array.isArray(value) ? value : [value]).map(String)
}

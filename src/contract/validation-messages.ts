import type { FastifySchemaValidationError } from 'fastify'
import { PATTERN_MESSAGES } from './common.js'

type Part = 'body' | 'querystring' | 'params' | 'headers' | string

/** `body.name: must NOT have more than 120 characters`: the field first, as the spec asks. */
export function describeValidation(errors: readonly FastifySchemaValidationError[], part: Part): string {
  const prefix = part === 'querystring' ? 'query' : part
  const messages: string[] = []
  for (const e of errors) {
    // TypeBox reports an unknown property twice; the additionalProperties entry names it.
    if (e.keyword === 'boolean') continue
    const path = prefix + e.instancePath.replaceAll('/', '.')
    for (const message of describeOne(path, e)) if (!messages.includes(message)) messages.push(message)
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
  const patternMessage = e.keyword === 'pattern' ? PATTERN_MESSAGES[String(params.pattern)] : undefined
  return [`${path}: ${patternMessage ?? e.message}`]
}

function namesIn(value: unknown): string[] {
  return (Array.isArray(value) ? value : [value]).map(String)
}

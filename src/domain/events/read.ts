import type { TSchema } from 'typebox'
import { Compile, type Validator } from 'typebox/compile'
import { EVENT_REGISTRY, type EventRegistry } from './registry.js'

/** An event's data brought to the current version of its type, or why it cannot be. */
export type ReadData = { readonly version: number; readonly data: Readonly<Record<string, unknown>> } | { readonly problem: string }

/**
 * Upcasts the data of a known event type from the version it was written at to the current
 * one, then checks it against the current schema. Types the registry does not know pass as
 * they are: readers ignore event types they do not know (docs/events.md, Compatibility).
 */
export function readEventData(type: string, version: number, data: Readonly<Record<string, unknown>>, registry: EventRegistry = EVENT_REGISTRY): ReadData {
  const spec = registry[type]
  if (!spec) return { version, data }
  if (version > spec.current) return { problem: `version ${version} is newer than this process reads (${type} v${spec.current})` }
  let current = data
  for (let v = version; v < spec.current; v++) {
    const upcast = spec.upcast[v]
    if (!upcast) return { problem: `no upcaster for ${type} v${v} to v${v + 1}` }
    current = upcast(current)
  }
  const problem = firstProblem(spec.schema, current)
  return problem === null ? { version: spec.current, data: current } : { problem: `not a valid ${type} v${spec.current}: ${problem}` }
}

const validators = new WeakMap<TSchema, Validator>()

/** `usage.inputTokens: must be >= 0`, or the missing field: the first thing wrong, field first. */
function firstProblem(schema: TSchema, data: unknown): string | null {
  let validator = validators.get(schema)
  if (!validator) {
    validator = Compile(schema)
    validators.set(schema, validator)
  }
  if (validator.Check(data)) return null
  const [error] = validator.Errors(data)
  if (!error) return 'invalid'
  const field = error.instancePath.slice(1).replaceAll('/', '.')
  const params: Record<string, unknown> = error.params
  if (error.keyword === 'required' && Array.isArray(params.requiredProperties)) {
    return `${[field, String(params.requiredProperties[0])].filter(Boolean).join('.')}: is required`
  }
  return `${field || 'data'}: ${error.message}`
}

/**
 * Finishes the OpenAPI document @fastify/swagger generates from the route schemas: every
 * schema that carries a `title` (Task, Session, Error409, …) becomes one named component,
 * referenced wherever it is used, so that generated clients get named types; and every
 * response declares the headers mats sends with it (RateLimit and RateLimit-Policy on every
 * limited route, Retry-After on 429 and 503, Location on a created task).
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json }
type JsonObject = { [key: string]: Json }

export interface OpenApiDocument {
  paths?: Record<string, Record<string, JsonObject>>
  components?: JsonObject & { schemas?: Record<string, Json>; headers?: Record<string, Json> }
  [key: string]: unknown
}

const HEADERS: Record<string, JsonObject> = {
  RateLimit: {
    description: 'IETF draft RateLimit: what remains of the group\'s quota now (`r`) and in how many seconds it is whole again (`t`), e.g. `"tasks.create";r=18;t=6`',
    schema: { type: 'string' },
  },
  'RateLimit-Policy': {
    description: 'IETF draft RateLimit-Policy: the group, its quota `q` and window `w` in seconds, e.g. `"tasks.create";q=20;w=60`',
    schema: { type: 'string' },
  },
  'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 0 } },
  Location: { description: 'The created task: `/v1/tasks/{taskId}`', schema: { type: 'string' } },
}

const headerRef = (name: string): JsonObject => ({ $ref: `#/components/headers/${name}` })

/**
 * The document with named schemas and declared headers; throws if two different schemas share
 * a title or an operation is not described (each route's `schema.description`, and
 * `answer(schema, description)` for its success statuses).
 */
export function withComponents(document: OpenApiDocument): OpenApiDocument {
  const schemas: Record<string, Json> = {}
  const paths = hoist((document.paths ?? {}) as Json, schemas) as NonNullable<OpenApiDocument['paths']>
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      declareHeaders(operation, `${method} ${path}`)
      assertDescribed(operation, `${method} ${path}`)
    }
  }
  return {
    ...document,
    paths,
    components: { ...document.components, schemas: { ...document.components?.schemas, ...sortedByName(schemas) }, headers: { ...document.components?.headers, ...HEADERS } },
  }
}

/** Replaces each titled schema under `node` by a reference to its component, innermost first. */
function hoist(node: Json | undefined, schemas: Record<string, Json>): Json {
  if (Array.isArray(node)) return node.map((item) => hoist(item, schemas))
  if (node === null || typeof node !== 'object') return node ?? null
  const copy: JsonObject = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, hoist(value, schemas)]))
  const title = copy.title
  if (typeof title !== 'string' || !('type' in copy)) return copy
  // A response's description belongs to the response, not to the schema it shares.
  const { description: _description, ...component } = copy
  const known = schemas[title]
  if (known !== undefined && JSON.stringify(known) !== JSON.stringify(component)) throw new Error(`two different schemas are titled ${title}`)
  schemas[title] = component
  return { $ref: `#/components/schemas/${title}` }
}

function declareHeaders(operation: JsonObject, where: string): void {
  const responses = operation.responses
  if (responses === null || typeof responses !== 'object' || Array.isArray(responses)) throw new Error(`${where} has no responses`)
  for (const [status, response] of Object.entries(responses)) {
    if (response === null || typeof response !== 'object' || Array.isArray(response)) continue
    const headers: JsonObject = { ...(response.headers as JsonObject | undefined), RateLimit: headerRef('RateLimit'), 'RateLimit-Policy': headerRef('RateLimit-Policy') }
    if (status === '429' || status === '503') headers['Retry-After'] = headerRef('Retry-After')
    if (status === '201' && operation.operationId === 'createTask') headers.Location = headerRef('Location')
    response.headers = headers
  }
}

function assertDescribed(operation: JsonObject, where: string): void {
  if (typeof operation.description !== 'string') throw new Error(`${where} has no description: give its route schema.description`)
  for (const [status, response] of Object.entries(operation.responses as Record<string, JsonObject>)) {
    if (Number(status) >= 400) continue
    // @fastify/swagger's placeholder when a response schema carries no description.
    if (response.description === 'Default Response') throw new Error(`${where} ${status} has no description: wrap its schema in answer(schema, description)`)
  }
}

function sortedByName(schemas: Record<string, Json>): Record<string, Json> {
  return Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b)))
}

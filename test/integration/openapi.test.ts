import { Validator } from '@seriousme/openapi-schema-validator'
import { readFileSync } from 'node:fs'
import t from 'tap'
import { PAGE_MAX } from '../../src/contract/common.js'
import { CreateSessionBody, ListSessionsQuery } from '../../src/contract/sessions.js'
import { CreateTaskBody } from '../../src/contract/tasks.js'
import { ApiClient } from '../helpers/http.js'
import { startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'
import { ERROR_CODES, type ErrorStatusWithCode } from '../../src/contract/errors.js'

type Schema = { type?: string; required?: string[]; properties?: Record<string, Schema>; [keyword: string]: unknown }
type Media = { schema: Schema }
type Parameter = { name: string; in: string; required?: boolean; schema: Schema }
type SecurityRequirement = Record<string, string[]>
type Operation = {
  operationId?: string
  security?: SecurityRequirement[]
  parameters?: Parameter[]
  requestBody?: { required?: boolean; content: Record<string, Media> }
  responses: Record<string, { description: string; content?: Record<string, Media>; headers?: Record<string, { schema: Schema }> }>
}
type OpenApiDoc = {
  openapi: string
  info: { title: string; version: string }
  servers: { url: string }[]
  paths: Record<string, Record<string, Operation>>
  security?: SecurityRequirement[]
  components: { securitySchemes: Record<string, { type: string; scheme?: string }>; schemas?: Record<string, Schema>; headers?: Record<string, { schema: Schema }> }
}

/**
 * Every v1 operation and the response statuses the spec's tables give for it (and issue 11's
 * cancel, events and approvals; issue 20's account feed, session update, counts and usage), as far as the routes exist today, plus the 503 of every route that reaches NATS or MongoDB
 * (invariant 11). GET /openapi.json is limited per client address (429).
 */
const SPEC_OPERATIONS: Record<string, Record<string, string[]>> = {
  '/agents': { get: ['200', '401', '429', '503'] },
  '/sessions': { get: ['200', '400', '401', '429', '503'], post: ['201', '400', '401', '409', '422', '429', '503'] },
  '/sessions/{sessionId}': { get: ['200', '400', '401', '404', '429', '503'], patch: ['200', '400', '401', '404', '429', '503'] },
  '/me': { get: ['200', '401', '429', '503'] },
  '/openapi.json': { get: ['200', '429'] },
  '/tasks': { get: ['200', '400', '401', '404', '429', '503'], post: ['201', '400', '401', '402', '404', '409', '422', '429', '503'] },
  '/tasks/{taskId}': { get: ['200', '400', '401', '404', '429', '503'] },
  '/tasks/{taskId}/cancel': { post: ['200', '400', '401', '404', '409', '429', '503'] },
  '/tasks/{taskId}/rerun': { post: ['201', '400', '401', '402', '404', '409', '422', '429', '503'] },
  '/tasks/batch': { post: ['200', '400', '401', '409', '422', '429', '503'] },
  '/tasks/{taskId}/events': { get: ['200', '400', '401', '404', '429', '503'] },
  '/tasks/counts': { get: ['200', '401', '429', '503'] },
  '/events': { get: ['200', '400', '401', '429', '503'] },
  '/usage': { get: ['200', '400', '401', '429', '503'] },
  '/tasks/{taskId}/actions': { get: ['200', '400', '401', '404', '429', '503'] },
  '/approvals': { get: ['200', '400', '401', '429', '503'] },
  '/actions/{actionId}/approve': { post: ['200', '400', '401', '404', '409', '429', '503'] },
  '/actions/{actionId}/reject': { post: ['200', '400', '401', '404', '409', '429', '503'] },
  '/schedules': { get: ['200', '400', '401', '404', '429', '503'], post: ['201', '400', '401', '404', '409', '429', '503'] },
  '/schedules/{scheduleId}': {
    get: ['200', '400', '401', '404', '429', '503'],
    patch: ['200', '400', '401', '404', '429', '503'],
    delete: ['204', '400', '401', '404', '429', '503'],
  },
  '/webhooks': { get: ['200', '401', '429', '503'], post: ['201', '400', '401', '409', '429', '503'] },
  '/webhooks/{webhookId}': { delete: ['204', '400', '401', '404', '429', '503'] },
  '/webhooks/{webhookId}/deliveries': { get: ['200', '400', '401', '404', '429', '503'] },
  '/webhooks/{webhookId}/rotate-secret': { post: ['200', '400', '401', '404', '429', '503'] },
}
const PUBLIC_OPERATIONS = new Set(['GET /openapi.json'])
const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'])
const PUBLIC_BASE_URL = 'https://mats.example/'

const servers = await startServers(t)
const service = await startTestService(t, servers, { env: { PUBLIC_BASE_URL } })
const anonymous = new ApiClient(service.url)

async function theDocument(): Promise<OpenApiDoc> {
  const res = await anonymous.get<OpenApiDoc>('/v1/openapi.json')
  if (res.status !== 200) throw new Error(`GET /v1/openapi.json answered ${res.status}: ${JSON.stringify(res.body)}`)
  return res.body
}

function operationsOf(doc: OpenApiDoc): [string, string, Operation][] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.has(method))
      .map(([method, op]): [string, string, Operation] => [path, method, op]),
  )
}

/** A media type's schema, its `$ref` to a named component followed. */
function jsonSchemaOf(doc: OpenApiDoc, media: Record<string, Media> | undefined): Schema | undefined {
  const schema = media?.['application/json']?.schema
  const ref = typeof schema?.$ref === 'string' ? /^#\/components\/schemas\/(.+)$/.exec(schema.$ref)?.[1] : undefined
  return ref === undefined ? schema : doc.components.schemas?.[ref]
}
const plain = (schema: unknown): unknown => JSON.parse(JSON.stringify(schema))

t.test('given no key, when GET /v1/openapi.json, then it is a valid OpenAPI 3.1 document', async (t) => {
  const res = await anonymous.get<OpenApiDoc>('/v1/openapi.json')
  t.equal(res.status, 200, 'no authentication needed')
  t.match(res.headers.get('content-type'), /^application\/json/)
  const result = await new Validator().validate(structuredClone(res.body))
  t.ok(result.valid, `the validator accepts it: ${JSON.stringify(result.errors, null, 2)}`)
  t.match(res.body.openapi, /^3\.1\./, 'openapi 3.1.x')
  t.equal(res.body.info.version, '1.0.0', 'API version 1.0.0')
  t.ok(res.body.info.title, 'it has a title')
  t.match(res.body.servers[0]?.url, /\/v1$/, 'the server URL is the versioned root')
  t.equal(res.body.servers[0]?.url, 'https://mats.example/v1', 'PUBLIC_BASE_URL, without its trailing slash, then /v1')
})

t.test('given the document, then it lists every v1 path of the spec, relative to the server, and nothing else', async (t) => {
  const doc = await theDocument()
  const paths = Object.keys(doc.paths)
  t.same([...paths].sort(), Object.keys(SPEC_OPERATIONS).sort(), 'exactly the spec paths that exist today')
  t.notOk(
    paths.some((p) => p.startsWith('/v1')),
    'no path repeats the /v1 of the server URL',
  )
  t.notOk(
    paths.some((p) => p === '/healthz' || p === '/readyz'),
    'probes are not part of the API',
  )
})

t.test('given the document, then each path has the spec methods and response statuses', async (t) => {
  const doc = await theDocument()
  for (const [path, methods] of Object.entries(SPEC_OPERATIONS)) {
    const item = doc.paths[path] ?? {}
    t.same(
      Object.keys(item)
        .filter((m) => HTTP_METHODS.has(m))
        .sort(),
      Object.keys(methods).sort(),
      `${path}: methods`,
    )
    for (const [method, statuses] of Object.entries(methods)) {
      t.same(Object.keys(item[method]?.responses ?? {}).sort(), [...statuses].sort(), `${method.toUpperCase()} ${path}: response statuses`)
    }
  }
  const ids = operationsOf(doc).map(([, , op]) => op.operationId)
  t.notOk(ids.includes(undefined), 'every operation has an operationId')
  t.equal(new Set(ids).size, ids.length, 'operationIds are unique')
})

t.test('given the document, then every error response is a JSON object with a required error string and a code from those of its status', async (t) => {
  const doc = await theDocument()
  let seen = 0
  for (const [path, method, op] of operationsOf(doc)) {
    for (const [status, response] of Object.entries(op.responses)) {
      if (Number(status) < 400) continue
      seen++
      const schema = jsonSchemaOf(doc, response.content)
      const where = `${method.toUpperCase()} ${path} ${status}`
      t.equal(schema?.type, 'object', `${where}: an object`)
      t.ok(schema?.required?.includes('error'), `${where}: error is required`)
      t.equal(schema?.properties?.error?.type, 'string', `${where}: error is a string`)
      t.ok(schema?.required?.includes('code'), `${where}: code is required`)
      const codes = (schema?.properties?.code as { enum?: string[] } | undefined)?.enum ?? []
      const ofStatus = ERROR_CODES[Number(status) as ErrorStatusWithCode] as readonly string[] | undefined
      t.ok(codes.length > 0 && codes.every((code) => ofStatus?.includes(code)), `${where}: its codes (${codes.join(', ')}) are listed, each one of its status`)
      t.ok(response.description, `${where}: has a description`)
    }
  }
  const expected = Object.values(SPEC_OPERATIONS)
    .flatMap((m) => Object.values(m).flat())
    .filter((s) => Number(s) >= 400).length
  t.equal(seen, expected, 'every error status of the table was checked')
})

t.test('given POST /sessions, then its request body schema is the TypeBox schema that validates the route', async (t) => {
  const doc = await theDocument()
  const op = doc.paths['/sessions']?.post
  t.equal(op?.requestBody?.required, true, 'a body is required')
  const schema = jsonSchemaOf(doc, op?.requestBody?.content)
  t.match(schema, {
    type: 'object',
    required: ['name'],
    additionalProperties: false,
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 120, pattern: '\\S' },
      companyName: { type: 'string', maxLength: 200 },
      companyUrl: { type: 'string', format: 'uri', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^/?#\\s]', maxLength: 500 },
      industry: { type: 'string', maxLength: 100 },
      targetAudience: { type: 'string', maxLength: 300 },
    },
  })
  t.same(schema, plain(CreateSessionBody), 'identical to CreateSessionBody')
})

t.test('given GET /sessions, then its query parameters are page and limit with the spec bounds and defaults', async (t) => {
  const params = (await theDocument()).paths['/sessions']?.get?.parameters ?? []
  t.same(params.map((p) => `${p.in}:${p.name}`).sort(), ['query:limit', 'query:page'], 'exactly page and limit, in the query')
  const byName = (name: string) => params.find((p) => p.name === name)
  t.match(byName('page'), { required: false, schema: { type: 'integer', minimum: 1, maximum: PAGE_MAX, default: 1 } })
  t.match(byName('limit'), { required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 25 } })
  const source = plain(ListSessionsQuery) as Schema
  for (const p of params) {
    // The parameter carries the schema's description (as OpenAPI wants it), the schema the rest.
    const { description, ...schema } = source.properties?.[p.name] ?? {}
    t.same(p.schema, schema, `${p.name}: identical to ListSessionsQuery`)
    t.equal((p as { description?: string }).description, description, `${p.name}: described`)
  }
})

t.test('given the document, then every v1 operation except openapi.json requires bearer auth', async (t) => {
  const doc = await theDocument()
  t.match(doc.components.securitySchemes.bearerAuth, { type: 'http', scheme: 'bearer' }, 'bearerAuth is HTTP bearer')
  t.same(doc.security, [{ bearerAuth: [] }], 'document-level security is bearerAuth')
  t.same(doc.paths['/openapi.json']?.get?.security, [], 'openapi.json overrides it with []')
  for (const [path, method, op] of operationsOf(doc)) {
    const name = `${method.toUpperCase()} ${path}`
    const effective = op.security ?? doc.security ?? []
    if (PUBLIC_OPERATIONS.has(name)) {
      t.same(effective, [], `${name}: public`)
      continue
    }
    t.ok(effective.length > 0 && effective.every((req) => 'bearerAuth' in req), `${name}: needs bearerAuth`)
  }
})

t.test('given no key, when each documented operation is called, then the document tells the truth about auth', async (t) => {
  const doc = await theDocument()
  for (const [path, method, op] of operationsOf(doc)) {
    const name = `${method.toUpperCase()} ${path}`
    const res = await anonymous.request<{ error?: string }>(method.toUpperCase(), `/v1${path}`, method === 'post' ? {} : undefined)
    const needsKey = (op.security ?? doc.security ?? []).length > 0
    t.equal(res.status, needsKey ? 401 : 200, `${name} without a key: ${needsKey ? 401 : 200}`)
    if (needsKey) t.same(Object.keys(res.body).sort(), ['code', 'error'], `${name}: the 401 body is { error, code }`)
  }
})

t.test('given the list operations, then page and limit declare a maximum, so no value the document allows is refused', async (t) => {
  const doc = await theDocument()
  for (const path of ['/sessions', '/tasks']) {
    const params = doc.paths[path]?.get?.parameters ?? []
    for (const name of ['page', 'limit']) {
      const maximum = params.find((p) => p.name === name)?.schema.maximum
      t.type(maximum, 'number', `GET ${path} ${name}: declares a maximum`)
      t.ok(Number.isSafeInteger(maximum), `GET ${path} ${name}: the maximum (${String(maximum)}) is a safe integer`)
    }
  }
})

t.test('given POST /tasks, then instruction is declared not blank, as the route checks', async (t) => {
  const doc = await theDocument()
  const schema = jsonSchemaOf(doc, doc.paths['/tasks']?.post?.requestBody?.content)
  t.match(schema?.properties?.instruction, { type: 'string', minLength: 4, maxLength: 4000, pattern: '\\S' })
  t.same(schema, plain(CreateTaskBody), 'identical to CreateTaskBody')
})

t.test('given the POSTs that create, then they declare the Idempotency-Key header and the Idempotent-Replayed answer', async (t) => {
  const doc = await theDocument()
  for (const path of ['/sessions', '/tasks']) {
    const op = doc.paths[path]?.post
    const params = op?.parameters ?? []
    t.match(
      params.find((p) => p.name === 'idempotency-key'),
      { in: 'header', required: false, schema: { type: 'string', minLength: 1, maxLength: 255 } },
      `POST ${path}: the header`,
    )
    t.ok(op?.responses['201']?.headers?.['idempotent-replayed'], `POST ${path}: 201 declares Idempotent-Replayed`)
    t.match(op?.responses['422']?.description, /Idempotency-Key/, `POST ${path}: 422 says what it means`)
    t.match(op?.responses['409']?.description, /Idempotency-Key/, `POST ${path}: 409 says what it means`)
  }
})

t.test('given the document, then resources, bodies and errors are named components, referenced where they are used', async (t) => {
  const doc = await theDocument()
  const names = Object.keys(doc.components.schemas ?? {})
  for (const name of [
    'Task',
    'Session',
    'Agent',
    'Action',
    'Webhook',
    'Delivery',
    'Pagination',
    'CreateTaskBody',
    'TaskResponse',
    'ListTasksResponse',
    'Error400',
    'Error404',
    'Error409',
    'Error503',
  ]) {
    t.ok(names.includes(name), `components.schemas.${name}`)
  }
  const created = doc.paths['/tasks']?.post?.responses['201']?.content?.['application/json']?.schema
  t.same(created, { $ref: '#/components/schemas/TaskResponse' }, 'POST /tasks 201 refers to TaskResponse')
  t.same(doc.components.schemas?.TaskResponse?.properties?.task, { $ref: '#/components/schemas/Task' }, 'which refers to Task')
  t.same(doc.paths['/tasks']?.post?.requestBody?.content['application/json']?.schema, { $ref: '#/components/schemas/CreateTaskBody' })
  t.notOk(JSON.stringify(doc.paths).includes('"title"'), 'no titled schema is left inline')
})

t.test('given the document, then every response declares the headers sent with it', async (t) => {
  const doc = await theDocument()
  t.same(Object.keys(doc.components.headers ?? {}).sort(), ['Location', 'RateLimit', 'RateLimit-Policy', 'Retry-After'])
  for (const [path, method, op] of operationsOf(doc)) {
    for (const [status, response] of Object.entries(op.responses)) {
      const where = `${method.toUpperCase()} ${path} ${status}`
      const headers = Object.keys(response.headers ?? {})
      t.ok(headers.includes('RateLimit') && headers.includes('RateLimit-Policy'), `${where}: RateLimit and RateLimit-Policy`)
      if (status === '429' || status === '503') t.ok(headers.includes('Retry-After'), `${where}: Retry-After`)
    }
  }
  t.ok(doc.paths['/tasks']?.post?.responses['201']?.headers?.Location, 'POST /tasks 201: Location')
})

t.test('given the served document, then it is the committed docs/openapi.json, which the typed client is generated from (else run npm run docs:openapi)', async (t) => {
  const doc = await theDocument()
  const committed = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8')) as OpenApiDoc
  t.same({ ...doc, servers: [{ url: '/v1' }] }, committed)
})

t.test('given the document, then every operation, parameter and response says what it is', async (t) => {
  const doc = await theDocument()
  for (const [path, method, op] of operationsOf(doc)) {
    const name = `${method.toUpperCase()} ${path}`
    t.ok(((op as { description?: string }).description ?? '').length > 40, `${name}: a description`)
    for (const p of op.parameters ?? []) t.ok((p as { description?: string }).description, `${name} ${p.in} ${p.name}: a description`)
    for (const [status, response] of Object.entries(op.responses)) t.ok(response.description && response.description !== 'Default Response', `${name} ${status}: ${response.description}`)
  }
})

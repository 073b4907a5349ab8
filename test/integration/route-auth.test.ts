import { randomBytes } from 'node:crypto'
import type { FastifyPluginAsync, HTTPMethods } from 'fastify'
import t from 'tap'
import app from '../../src/http/app.js'
import accountScope from '../../src/http/plugins/account-scope.js'
import { API_PREFIX } from '../../src/http/plugins/openapi.js'
import { createServer } from '../../src/http/server.js'
import { aKey, anAccount } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { connectTestInfra } from '../helpers/service.js'

/**
 * Every route fastify registers answers 401 without an API key, unless it is one of these
 * (method and path). A route added outside the account scope of /v1 (plugins/account-scope.ts)
 * fails here until it is moved in, or named here as public on purpose.
 */
const PUBLIC = [
  /^(GET|HEAD) \/(healthz|readyz|metrics)$/,
  // The OpenAPI document and its rendering, limited per client address.
  /^(GET|HEAD) \/v1\/openapi\.json$/,
  /^(GET|HEAD) \/v1\/docs(\/.*)?$/,
  // Refuses every method but POST with 405 (src/mcp/plugin.ts).
  /^(GET|HEAD|DELETE) \/mcp$/,
  // The web console's page and files, and its sign-in, which takes the key in its body (docs/console.md).
  /^(GET|HEAD) \/console(\/\*)?$/,
  /^POST \/console\/api\/session$/,
]

interface Route {
  readonly method: string
  readonly url: string
}

const servers = await startServers(t)
// Every refusal below counts against the one client address: far more than this test sends.
const infra = await connectTestInfra(t, servers, { RATE_LIMIT_AUTH_FAILURES_PER_MIN: '100000' })

/** The API as `buildServer` makes it, each route recorded as fastify registers it; `extra` is registered after the API. */
async function serverRecordingRoutes(extra?: FastifyPluginAsync) {
  const routes: Route[] = []
  const server = createServer(infra)
  server.addHook('onRoute', ({ method, url }) => {
    for (const one of [method].flat()) routes.push({ method: one, url })
  })
  await server.register(app, { infra })
  if (extra) await server.register(extra, { prefix: API_PREFIX })
  t.teardown(() => server.close())
  return { server, routes }
}

/** A path that matches the route's pattern: each `:param` and `*` filled in. */
const pathOf = (url: string) => url.replace(/:\w+/g, 'x').replace(/\*/g, 'x')
const isPublic = ({ method, url }: Route) => PUBLIC.some((pattern) => pattern.test(`${method} ${url}`))

t.test('every route not declared public answers 401 without a key, and with a key nobody issued', async (t) => {
  // Given the API as it is registered
  const { server, routes } = await serverRecordingRoutes()
  await server.ready()
  const guarded = routes.filter((route) => !isPublic(route))
  const named = guarded.map(({ method, url }) => `${method} ${url}`)
  for (const known of ['POST /v1/tasks', 'GET /v1/tasks/:taskId/events', 'POST /v1/actions/:actionId/approve', 'DELETE /v1/webhooks/:webhookId', 'GET /v1/me', 'POST /mcp']) {
    t.ok(named.includes(known), `${known} is among the routes checked`)
  }

  for (const route of guarded) {
    for (const authorization of [undefined, `Bearer mats_${randomBytes(32).toString('base64url')}`]) {
      // When it is asked without a key, or with a forged one
      const res = await server.inject({ method: route.method as HTTPMethods, url: pathOf(route.url), headers: authorization ? { authorization } : {} })
      // Then it refuses before anything else: 401 unauthenticated
      const what = `${route.method} ${route.url} ${authorization ? 'with a forged key' : 'without a key'}`
      t.equal(res.statusCode, 401, `${what}: 401`)
      if (route.method !== 'HEAD') t.equal(JSON.parse(res.body).code, 'unauthenticated', `${what}: code unauthenticated`)
    }
  }
})

t.test('a route in the account scope is authenticated and spends the group it names', async (t) => {
  // Given a route registered in a plugin inside the account scope, as the files of src/http/routes are
  const probe: FastifyPluginAsync = async (scope) => {
    await scope.register(accountScope)
    await scope.register(async (routes) => {
      routes.get('/probe', { config: { rateLimitGroup: 'meta' } }, async (request) => ({ accountId: request.principal?.accountId }))
    })
  }
  const { server } = await serverRecordingRoutes(probe)
  const key = await aKey(infra, (await anAccount(infra)).id)

  // When it is asked without a key, then with one
  const refused = await server.inject({ method: 'GET', url: `${API_PREFIX}/probe` })
  const admitted = await server.inject({ method: 'GET', url: `${API_PREFIX}/probe`, headers: { authorization: `Bearer ${key.key}` } })

  // Then the scope refuses the first and admits the second, spending the route's group
  t.equal(refused.statusCode, 401, 'without a key: 401')
  t.equal(admitted.statusCode, 200, 'with a key: 200')
  t.equal(admitted.json().accountId, key.accountId, 'the handler sees the principal')
  t.match(admitted.headers['ratelimit-policy'], /^"meta";q=\d+;w=60$/, 'the meta group was spent')
})

t.test('a route in the account scope that names no rate-limit group stops the server from starting', async (t) => {
  // Given a route registered in the account scope without config.rateLimitGroup
  const unlimited: FastifyPluginAsync = async (scope) => {
    await scope.register(accountScope)
    scope.get('/unlimited', async () => ({}))
  }
  const server = createServer(infra)
  t.teardown(() => server.close())
  await server.register(app, { infra })
  // When it is registered, then the server refuses to start, naming the route and what to add
  await t.rejects(async () => server.register(unlimited, { prefix: API_PREFIX }), /GET \/v1\/unlimited is in the account scope but names no rate-limit group: add config: \{ rateLimitGroup/)
})

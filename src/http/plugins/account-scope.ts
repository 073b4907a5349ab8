import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import type { LimitGroup } from '../../contract/rate-limits.js'
import { principalOf } from './auth.js'

/** The groups an account spends; `openapi` and `auth.failures` are counted per client address instead. */
export type AccountLimitGroup = Exclude<LimitGroup, 'openapi' | 'auth.failures'>

/**
 * What every route acting for an account shares, declared once for the scope it is registered
 * in (fastify's encapsulation, as fastify/demo's autohooks): the scope's `onRequest` hooks
 * check the API key (a refusal is a 401 counted against the client address), then spend one
 * request of the route's rate-limit group from the account's quota (429), all before the body
 * is read or validated. Registered with fastify-plugin into the scope, so its hooks are the
 * scope's own. A route names its group in its config and nothing else:
 *
 *   app.get('/things', { config: { rateLimitGroup: 'meta' }, schema: { ... } }, handler)
 *
 * A route registered in the scope without a group stops the server from starting.
 */
export default fp(
  async function accountScope(scope: FastifyInstance) {
    scope.addHook('onRoute', requireLimitGroup)
    scope.addHook('onRequest', scope.authenticate)
    scope.addHook('onRequest', async (request, reply) => {
      // A batch spends its group once per item, in its handler (POST /v1/tasks/batch).
      if (request.routeOptions.config.rateLimitPerItem) return
      await scope.limiter.check(limitGroupOf(request), principalOf(request).accountId, reply)
    })
  },
  { decorators: { fastify: ['authenticate', 'limiter'] } },
)

function requireLimitGroup(route: RouteOptions): void {
  if (route.config?.rateLimitGroup) return
  const methods = [route.method].flat().join(',')
  throw new Error(`${methods} ${route.url} is in the account scope but names no rate-limit group: add config: { rateLimitGroup: '<group>' } to the route`)
}

function limitGroupOf(request: FastifyRequest): AccountLimitGroup {
  const group = request.routeOptions.config.rateLimitGroup
  // requireLimitGroup refused every route without one at startup.
  if (!group) throw new Error(`${request.method} ${request.routeOptions.url} names no rate-limit group`)
  return group
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The quota a request of this route spends; read by the account scope's hook. */
    rateLimitGroup?: AccountLimitGroup
    /**
     * The handler spends `rateLimitGroup` itself, once per item of the request
     * (`limiter.checkEach`), after Idempotency-Key: the scope only authenticates.
     */
    rateLimitPerItem?: true
  }
}

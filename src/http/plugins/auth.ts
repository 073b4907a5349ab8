import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { UnauthorizedError } from '../../domain/errors.js'
import { ApiKeyAuthenticator, type Principal } from '../authenticator.js'

/**
 * Decorates the app with the authenticator and every request with `principal`.
 * Routes opt in with `onRequest: app.authenticate`, so a bad key is refused before
 * the body is parsed or validated.
 */
export default fp(async function auth(app: FastifyInstance) {
  const { readModels, config, clock, log } = app.infra
  app.decorate('authenticator', new ApiKeyAuthenticator(readModels, config.AUTH_CACHE_TTL_MS, clock, log))
  app.decorateRequest('principal', null)
  app.decorate('authenticate', async function authenticate(request: FastifyRequest) {
    request.principal = await app.authenticator.authenticate(request.headers.authorization)
  })
})

declare module 'fastify' {
  interface FastifyInstance {
    authenticate: (request: FastifyRequest) => Promise<void>
  }
}

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new UnauthorizedError('missing Authorization header: send "Authorization: Bearer <API key>"')
  return request.principal
}

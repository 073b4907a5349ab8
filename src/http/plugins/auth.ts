import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { UnauthorizedError } from '../../domain/errors.js'
import { eventTypeSubjects } from '../../infra/nats/subjects.js'
import { AuthFailures } from '../auth-failures.js'
import { clientSubject } from '../client-address.js'
import { ApiKeyAuthenticator, type Principal } from '../authenticator.js'
import { isRecord } from '../../domain/is-record.js'

/**
 * Decorates the app with the authenticator and every request with `principal`.
 * `app.authenticate` is an `onRequest` hook, so a bad key is refused before the body is
 * parsed or validated: the account scope adds it for every /v1 route (account-scope.ts),
 * the MCP endpoint to its own route. Every 401 counts against the client address, an IPv6
 * one by its /64 (src/http/auth-failures.ts); needs the rate-limit plugin registered first.
 */
export default fp(
  async function auth(app: FastifyInstance) {
    const { readModels, config, clock, log, nc } = app.infra
    const authenticator = new ApiKeyAuthenticator(readModels, config.AUTH_CACHE_TTL_MS, clock, log)
    const failures = new AuthFailures(app.limiter, config.RATE_LIMIT_AUTH_FAILURES_PER_MIN)
    app.decorate('authenticator', authenticator)
    app.decorateRequest('principal', null)
    app.decorate('authenticate', async function authenticate(request: FastifyRequest, reply: FastifyReply) {
      const address = clientSubject(request.ip)
      try {
        request.principal = await authenticator.authenticate(request.headers.authorization, () => failures.assertAdmitted(address, reply))
      } catch (err) {
        if (err instanceof UnauthorizedError) await failures.record(address, reply)
        throw err
      }
    })

    // A key created anywhere ends any cached miss of its hash in this process at once.
    const created = nc.subscribe(eventTypeSubjects('apikey', 'ApiKeyCreated'), {
      callback: (err, msg) => {
        const keyHash = err ? undefined : keyHashOf(msg.string())
        if (keyHash) authenticator.forgetMiss(keyHash)
      },
    })
    app.addHook('onClose', async () => created.unsubscribe())
  },
  { dependencies: ['rate-limit'] },
)

function keyHashOf(envelopeJson: string): string | undefined {
  try {
    const envelope: unknown = JSON.parse(envelopeJson)
    const data = isRecord(envelope) ? envelope.data : undefined
    return isRecord(data) && typeof data.keyHash === 'string' ? data.keyHash : undefined
  } catch {
    return undefined
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>
  }
}

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new UnauthorizedError('missing Authorization header: send "Authorization: Bearer <API key>"')
  return request.principal
}

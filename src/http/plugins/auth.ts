import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { Issuer } from '../../commands/execute.js'
import { UnauthorizedError } from '../../domain/errors.js'
import { eventTypeSubjects } from '../../infra/nats/subjects.js'
import { AuthFailures } from '../auth-failures.js'
import { clientSubject } from '../client-address.js'
import { ApiKeyAuthenticator, type Principal } from '../authenticator.js'
import { isRecord } from '../../domain/is-record.js'
import { ConsoleSessionStore } from '../../infra/nats/console-session-store.js'
import { hasSessionCookie, sessionToken } from '../console/cookie.js'
import { CsrfError } from '../console/csrf-error.js'
import { isSameOrigin } from '../console/same-origin.js'
import { ConsoleSessions, csrfMatches, isBackground } from '../console/sessions.js'

/** How often a long response (an event stream) opened with a console cookie checks that its session still lives. */
const SESSION_RECHECK_MS = 1000

/** Methods that change nothing: a cookie-authenticated request with any other needs the CSRF token and a same-origin Origin. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * Decorates the app with the authenticator and every request with `principal`.
 * `app.authenticate` is an `onRequest` hook, so a bad key is refused before the body is
 * parsed or validated: the account scope adds it for every /v1 route (account-scope.ts),
 * the MCP endpoint to its own route. Every 401 counts against the client address, an IPv6
 * one by its /64 (src/http/auth-failures.ts); needs the rate-limit plugin registered first.
 * A request without `Authorization` may instead carry the web console's session cookie
 * (src/http/console/, ADR 0037); its writes need the session's X-CSRF-Token and a same-origin Origin.
 */
export default fp(
  async function auth(app: FastifyInstance) {
    const { readModels, config, clock, log, nc } = app.infra
    const authenticator = new ApiKeyAuthenticator(readModels, { ttlMs: config.AUTH_CACHE_TTL_MS, readGivenUpMs: config.MONGODB_TIMEOUT_MS }, clock, log)
    const failures = new AuthFailures(app.limiter, config.RATE_LIMIT_AUTH_FAILURES_PER_MIN)
    const consoleSessions = new ConsoleSessions(await ConsoleSessionStore.open(app.infra.js, config.NATS_STREAM_REPLICAS), authenticator, config.CONSOLE_SESSION_IDLE_MS)
    app.decorate('authenticator', authenticator)
    app.decorate('authFailures', failures)
    app.decorate('consoleSessions', consoleSessions)
    app.decorateRequest('principal', null)

    async function bySessionCookie(request: FastifyRequest) {
      const { principal, record } = await consoleSessions.resolve(sessionToken(request), { touch: !isBackground(request.headers) })
      if (!SAFE_METHODS.has(request.method)) {
        if (!isSameOrigin(request, config.PUBLIC_BASE_URL)) throw new CsrfError('Origin: a console write must come from a page of this origin')
        if (!csrfMatches(record, request.headers['x-csrf-token'])) throw new CsrfError("headers.x-csrf-token: missing or not this session's token")
      }
      return principal
    }

    // A stream opened with the cookie ends within SESSION_RECHECK_MS + AUTH_CACHE_TTL_MS (< 5 s) of its session ending;
    // the re-check is no use of the session (an open stream alone does not keep it from timing out).
    app.decorate('watchConsoleSession', function watchConsoleSession(request: FastifyRequest, onEnded: () => void) {
      if (request.headers.authorization !== undefined || !hasSessionCookie(request)) return () => undefined
      const token = sessionToken(request)
      const timer = setInterval(() => {
        consoleSessions.resolve(token, { touch: false }).catch((err: unknown) => {
          if (err instanceof UnauthorizedError) onEnded()
        })
      }, SESSION_RECHECK_MS)
      return () => clearInterval(timer)
    })

    app.decorate('authenticate', async function authenticate(request: FastifyRequest, reply: FastifyReply) {
      const address = clientSubject(request.ip)
      try {
        request.principal =
          request.headers.authorization === undefined && hasSessionCookie(request)
            ? await bySessionCookie(request)
            : await authenticator.authenticate(request.headers.authorization, () => failures.assertAdmitted(address, reply))
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
    authFailures: AuthFailures
    consoleSessions: ConsoleSessions
    /** For a request authenticated by the console cookie: calls `onEnded` once its session has ended (revoked key, idle, sign-out); returns the stop. */
    watchConsoleSession: (request: FastifyRequest, onEnded: () => void) => () => void
  }
}

/** Who issues this request's command, and since when it waits for its answer. */
export function issuerOf(request: FastifyRequest, reply: FastifyReply): Issuer {
  return { correlationId: request.id, keyId: principalOf(request).keyId, receivedAt: receivedAtOf(reply) }
}

/**
 * When the request reached fastify (epoch ms). `reply.elapsedTime` counts from there when
 * fastify watches the response, which it does with a logger (every mats server has one) or an
 * onResponse hook (the metrics'); answer-budget.test.ts fails should that ever stop.
 */
export const receivedAtOf = (reply: FastifyReply): number => Date.now() - reply.elapsedTime

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new UnauthorizedError('missing Authorization header: send "Authorization: Bearer <API key>"')
  return request.principal
}

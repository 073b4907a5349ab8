import { randomUUID } from 'node:crypto'
import { registerAjvFormats, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import type { AppContext } from '../app-context.js'
import app from './app.js'
import { trustProxySetting } from './client-address.js'
import { clientErrorHandler, frameworkErrors, MAX_PARAM_LENGTH, refuseRequestsWhileClosing } from './edges.js'
import { validatorCompiler } from './validator.js'

registerAjvFormats()

export type MatsServer = Awaited<ReturnType<typeof buildServer>>

/** The whole HTTP API on a fastify instance with mats' settings; not listening yet. */
export async function buildServer(infra: AppContext) {
  const server = createServer(infra)
  await server.register(app, { infra })
  return server
}

/** The fastify instance with mats' settings and edge handling, before the API is registered: tests add hooks to it first. */
export function createServer(infra: AppContext) {
  const server = Fastify({
    loggerInstance: infra.log as FastifyBaseLogger,
    genReqId: (req) => {
      const given = req.headers['x-request-id']
      return typeof given === 'string' && /^[\w-]{1,64}$/.test(given) ? given : randomUUID()
    },
    bodyLimit: 64 * 1024,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors,
    clientErrorHandler,
    // Fastify's own 503 while closing has a body of its own; the hook below answers it as { error }.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // request.ip believes X-Forwarded-For only from the proxies named here (docs/configuration.md).
    trustProxy: trustProxySetting(infra.config.TRUST_PROXY),
  }).withTypeProvider<TypeBoxTypeProvider>()
  server.setValidatorCompiler(validatorCompiler)
  // Bodies are JSON only: anything else is a 415, not a string that fails validation.
  server.removeContentTypeParser('text/plain')
  acceptEmptyJsonBodies(server)
  server.addHook('onSend', async (request, reply) => {
    void reply.header('x-request-id', request.id)
  })
  refuseRequestsWhileClosing(server)
  return server
}

/**
 * An empty body sent as `application/json` (clients that always set the header) is no body,
 * as it is without the header: routes that take none (`POST …/cancel`) answer as usual, and
 * routes that need one say `body` is missing. Anything else goes to fastify's own parser,
 * which refuses prototype poisoning.
 */
function acceptEmptyJsonBodies(server: FastifyInstance): void {
  const parse = server.getDefaultJsonParser('error', 'error')
  server.removeContentTypeParser('application/json')
  server.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body: string, done) => {
    if (body === '') return done(null, undefined)
    parse(request, body, done)
  })
}

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { originPolicy } from './origin.js'
import { errorBody } from '../contract/errors.js'

export const MCP_PATH = '/mcp'

/**
 * The MCP endpoint: stateless Streamable HTTP at POST /mcp. Origin and bearer key are
 * checked by fastify hooks, so a refusal is an ordinary `{ error }` reply (403, or 401 with
 * `WWW-Authenticate: Bearer`); only an admitted request is handed to the SDK transport,
 * which then owns the raw response. Outside /v1, so the OpenAPI document hides it.
 */
export default async function mcp(app: FastifyInstance): Promise<void> {
  const { MCP_ALLOWED_ORIGINS, PUBLIC_BASE_URL } = app.infra.config
  const allowOrigin = originPolicy(MCP_ALLOWED_ORIGINS, PUBLIC_BASE_URL)

  async function checkOrigin(request: FastifyRequest, reply: FastifyReply) {
    const { origin } = request.headers
    if (allowOrigin(origin)) return
    return reply.code(403).send(errorBody('origin_not_allowed', `origin not allowed: ${origin}; set MCP_ALLOWED_ORIGINS to admit a browser origin`))
  }

  // The SDK refuses the same with "Client must accept both …": this says what was sent and the header to send.
  async function checkAccept(request: FastifyRequest, reply: FastifyReply) {
    const missing = missingAcceptedTypes(request.headers.accept)
    if (missing.length === 0) return
    return reply.code(406).send(notAcceptable(request.headers.accept, missing))
  }

  // The SDK (and zod under it) loads with the first MCP request: an API nobody calls over
  // MCP does not keep it resident.
  let exchange: Promise<typeof import('./exchange.js')> | undefined
  app.post(MCP_PATH, { onRequest: [checkOrigin, app.authenticate, checkAccept] }, async (request, reply) => {
    exchange ??= import('./exchange.js')
    return (await exchange).answerMcp(app, request, reply)
  })

  app.route({
    method: ['GET', 'DELETE'],
    url: MCP_PATH,
    config: { refusesMethod: true },
    handler: async (request, reply) =>
      reply
        .code(405)
        .header('allow', 'POST')
        .send(errorBody('method_not_allowed', `${request.method} ${MCP_PATH} is not supported: the endpoint is stateless (no sessions, no server-initiated stream); send JSON-RPC with POST`)),
  })
}

/** What MCP Streamable HTTP requires a POST to accept, even when the answer is plain JSON. */
const REQUIRED_ACCEPT = ['application/json', 'text/event-stream'] as const
const ACCEPT_HEADER = `Accept: ${REQUIRED_ACCEPT.join(', ')}`

/** The SDK's test, substring by substring (Accept is a list): the types `accept` lacks. */
function missingAcceptedTypes(accept: string | undefined): string[] {
  return REQUIRED_ACCEPT.filter((type) => !accept?.includes(type))
}

/** A JSON-RPC error, as the SDK answers its own 406, naming what is missing and the header to send. */
function notAcceptable(accept: string | undefined, missing: readonly string[]) {
  const sent = accept === undefined ? 'no Accept header was sent' : `"Accept: ${accept}" lacks ${missing.join(' and ')}`
  const message = `Not Acceptable: ${sent}; send "${ACCEPT_HEADER}" (MCP Streamable HTTP requires both, even for a JSON answer)`
  return { jsonrpc: '2.0', error: { code: -32000, message }, id: null }
}

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

  // The SDK (and zod under it) loads with the first MCP request: an API nobody calls over
  // MCP does not keep it resident.
  let exchange: Promise<typeof import('./exchange.js')> | undefined
  app.post(MCP_PATH, { onRequest: [checkOrigin, app.authenticate] }, async (request, reply) => {
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

import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { principalOf } from '../http/plugins/auth.js'
import { isRecord } from '../http/validator.js'
import { originPolicy } from './origin.js'
import { EMPTY_BATCH_REPLY, isEmptyBatch, refuseMalformedToolCalls } from './requests.js'
import { buildMcpServer } from './server.js'

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
    return reply.code(403).send({ error: `origin not allowed: ${origin}; set MCP_ALLOWED_ORIGINS to admit a browser origin` })
  }

  app.post(MCP_PATH, { onRequest: [checkOrigin, app.authenticate] }, async (request, reply) => {
    if (isEmptyBatch(request.body)) return reply.code(400).send(EMPTY_BATCH_REPLY)
    const server = buildMcpServer({ infra: app.infra, limiter: app.limiter, principal: principalOf(request), log: request.log, requestId: request.id })
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !asksForProgress(request.body) })
    reply.hijack()
    reply.raw.setHeader('x-request-id', request.id)
    // The per-request server lives exactly as long as its HTTP exchange.
    reply.raw.on('close', () => void server.close())
    try {
      await server.connect(transport)
      refuseMalformedToolCalls(transport)
      await transport.handleRequest(request.raw, reply.raw, request.body)
    } catch (err) {
      request.log.error({ err }, 'MCP request failed')
      if (!reply.raw.headersSent) {
        reply.raw.writeHead(500, { 'content-type': 'application/json' })
        reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'internal error' }, id: null }))
      }
    }
  })

  app.route({
    method: ['GET', 'DELETE'],
    url: MCP_PATH,
    config: { refusesMethod: true },
    handler: async (request, reply) => reply.code(405).header('allow', 'POST').send({
      error: `${request.method} ${MCP_PATH} is not supported: the endpoint is stateless (no sessions, no server-initiated stream); send JSON-RPC with POST`,
    }),
  })
}

/**
 * Progress notifications can only travel on an SSE response; a JSON response drops them.
 * So a request whose calls ask for progress (a `progressToken`) is answered with SSE,
 * and every other one with plain JSON, which is simpler for clients and proxies.
 */
function asksForProgress(body: unknown): boolean {
  const messages: unknown[] = Array.isArray(body) ? body : [body]
  return messages.some((m) => isRecord(m) && isRecord(m.params) && isRecord(m.params._meta) && m.params._meta.progressToken !== undefined)
}

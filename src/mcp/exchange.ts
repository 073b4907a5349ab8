import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { principalOf, receivedAtOf } from '../http/plugins/auth.js'
import { isRecord } from '../domain/is-record.js'
import { EMPTY_BATCH_REPLY, isEmptyBatch, refuseMalformedToolCalls } from './requests.js'
import { buildMcpServer } from './server.js'

/** One admitted POST /mcp (origin and key already checked), handed to a per-request SDK server. */
export async function answerMcp(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  if (isEmptyBatch(request.body)) return reply.code(400).send(EMPTY_BATCH_REPLY)
  const server = buildMcpServer({ infra: app.infra, limiter: app.limiter, principal: principalOf(request), log: request.log, requestId: request.id, receivedAt: receivedAtOf(reply) })
  const transport = new StreamableHTTPServerTransport({ enableJsonResponse: !asksForProgress(request.body) }) // no sessionIdGenerator: stateless
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

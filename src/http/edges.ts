import { maxHeaderSize, STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { errorBody, type ErrorCode } from '../contract/errors.js'

/**
 * Failures that happen before a request reaches a route: a URL that cannot be decoded, a
 * request line or headers over node's limit, bytes that are not HTTP, a request arriving
 * on an open connection while the server closes. Fastify and node answer these with bodies
 * of their own; here they are `{ error }` like every other error.
 */

/**
 * Path parameters may be as long as the URL itself: the route's schema then refuses an
 * over-long id as a 400 that names it, instead of the router answering 414 with no route.
 * The router's own limit guards regex parameters against slow matching; we declare none.
 */
export const MAX_PARAM_LENGTH = maxHeaderSize

export function frameworkErrors(err: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  if (err.code === 'FST_ERR_BAD_URL') return void reply.code(400).send(errorBody('malformed_request', 'malformed URL: a percent-encoded sequence does not decode'))
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') return void reply.code(400).send(errorBody('invalid_request', `a path parameter is over ${MAX_PARAM_LENGTH} characters`))
  reply.log.error({ err }, 'router error')
  return void reply.code(500).send(errorBody('internal_error', 'internal error'))
}

const CLIENT_ERRORS: Record<string, [number, ErrorCode, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'headers_too_large', `request line and headers are over ${maxHeaderSize} bytes: shorten the URL or the headers`],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'request_timeout', 'the request was not received in time'],
}

/** Node's `clientError`: the request could not be parsed, so no route ever sees it. */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  const [status, code, error] = CLIENT_ERRORS[err.code ?? ''] ?? [400, 'malformed_request', 'malformed HTTP request']
  const body = JSON.stringify(errorBody(code, error))
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`)
  }
  socket.destroy(err)
}

/**
 * Once closing, requests still arriving on open keep-alive connections are turned away
 * with 503 (and the connection closed), so the balancer sends them to another process.
 */
export function refuseRequestsWhileClosing(server: FastifyInstance): void {
  let closing = false
  server.addHook('preClose', async () => {
    closing = true
  })
  server.addHook('onRequest', async (_request, reply) => {
    if (!closing) return
    return reply.code(503).header('connection', 'close').header('retry-after', '1').send(errorBody('shutting_down', 'server shutting down; retry (another process will answer)'))
  })
}

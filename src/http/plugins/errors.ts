import type { FastifyError, FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { DomainError } from '../../domain/errors.js'
import { isDependencyUnavailable } from '../../infra/unavailable.js'
import { ERROR_CODES, UNAVAILABLE_RETRY_AFTER_S, errorBody, statusOfDomainError, type ErrorCode, type ErrorStatusWithCode } from '../../contract/errors.js'
import { describeValidation } from '../../contract/validation-messages.js'
import { CsrfError } from '../console/csrf-error.js'

// The wording is shared with the MCP tools; it lives with the contract.
export { describeValidation }

/** Fastify's own refusals (a body it cannot parse, too large, not JSON): the first code of their status, but a 400 means the request could not be read. */
function frameworkCode(status: number): ErrorCode {
  return status === 400 ? 'malformed_request' : (ERROR_CODES[status as ErrorStatusWithCode]?.[0] ?? 'malformed_request')
}

/** The one error handler: every failure leaves as `{ error, code }` with the right status. */
export default fp(async function errors(app: FastifyInstance) {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err.validation) {
      return reply.code(400).send(errorBody('invalid_request', describeValidation(err.validation, err.validationContext ?? 'body')))
    }
    const status = err instanceof DomainError ? statusOfDomainError(err) : null
    if (status !== null && err instanceof DomainError) {
      if (status === 401) void reply.header('www-authenticate', 'Bearer')
      return reply.code(status).send(errorBody(err.code, err.message, err.details))
    }
    if (err instanceof CsrfError) return reply.code(403).send(errorBody('csrf_failed', err.message))
    if (isDependencyUnavailable(err)) {
      // Every request says so while NATS or MongoDB is away: one line each, without the stack (NatsLink and the driver log the outage itself).
      request.log.warn({ error: err.message }, 'dependency unavailable: answered 503')
      return reply.code(503).header('retry-after', String(UNAVAILABLE_RETRY_AFTER_S)).send(errorBody('unavailable', 'service temporarily unavailable, retry later'))
    }
    const framework = err.statusCode ?? 500
    if (framework === 415) return reply.code(415).send(errorBody('unsupported_media_type', unsupportedMediaType(request.headers['content-type'])))
    if (framework >= 400 && framework < 500 && !(err instanceof DomainError)) {
      return reply.code(framework).send(errorBody(frameworkCode(framework), err.message))
    }
    request.log.error({ err }, 'unhandled error')
    return reply.code(500).send(errorBody('internal_error', 'internal error'))
  })
})

/** Says what was sent and what to send instead: fastify's own text is only "Unsupported Media Type". */
function unsupportedMediaType(contentType: string | undefined): string {
  const sent = contentType === undefined ? 'a body without Content-Type' : `Content-Type ${JSON.stringify(contentType)}`
  return `${sent} is not accepted: send the body as JSON with "Content-Type: application/json"`
}

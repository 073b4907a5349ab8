import { context, propagation, ROOT_CONTEXT, SpanStatusCode, trace, type Span } from '@opentelemetry/api'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { SpanKind, tracer } from '../../infra/tracing/spans.js'
import { tracingOn } from '../../infra/tracing/tracing.js'

const spans = new WeakMap<FastifyRequest, Span>()

/**
 * A server span per request (`POST /v1/tasks`, by route pattern), continuing the caller's
 * trace when it sends `traceparent`; the rest of the request runs in it, so the events it
 * appends carry it on (src/infra/tracing/spans.ts). Only when this process started tracing.
 */
export default fp(async function tracing(app: FastifyInstance) {
  // Off, the hooks would only make no-op spans: two per request on the hottest path.
  if (!tracingOn()) return
  app.addHook('onRequest', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched'
    const parent = propagation.extract(ROOT_CONTEXT, request.headers)
    const attributes = { 'http.request.method': request.method, 'http.route': route, 'url.path': request.url.split('?')[0] ?? '' }
    const span = tracer.startSpan(`${request.method} ${route}`, { kind: SpanKind.SERVER, attributes }, parent)
    spans.set(request, span)
    // A hijacked answer (an SSE stream) never reaches onResponse: its span ends with the connection.
    reply.raw.once('close', () => end(request, reply.raw.statusCode))
    context.with(trace.setSpan(parent, span), done)
  })
  app.addHook('onResponse', async (request, reply) => end(request, reply.statusCode))
})

/** Ends a request's span once, however the request ends. */
function end(request: FastifyRequest, status: number): void {
  const span = spans.get(request)
  if (!span) return
  spans.delete(request)
  span.setAttribute('http.response.status_code', status)
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR })
  span.end()
}

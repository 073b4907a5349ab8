import { context, propagation, ROOT_CONTEXT, SpanStatusCode, trace, type Span } from '@opentelemetry/api'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { SpanKind, tracer } from '../../infra/tracing/spans.js'

const spans = new WeakMap<FastifyRequest, Span>()

/**
 * A server span per request (`POST /v1/tasks`, by route pattern), continuing the caller's
 * trace when it sends `traceparent`; the rest of the request runs in it, so the events it
 * appends carry it on (src/infra/tracing/spans.ts). No-ops unless tracing is on.
 */
export default fp(async function tracing(app: FastifyInstance) {
  app.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched'
    const parent = propagation.extract(ROOT_CONTEXT, request.headers)
    const span = tracer.startSpan(
      `${request.method} ${route}`,
      {
        kind: SpanKind.SERVER,
        attributes: { 'http.request.method': request.method, 'http.route': route, 'url.path': request.url.split('?')[0] ?? '' },
      },
      parent,
    )
    spans.set(request, span)
    context.with(trace.setSpan(parent, span), done)
  })
  app.addHook('onResponse', async (request, reply) => {
    const span = spans.get(request)
    if (!span) return
    span.setAttribute('http.response.status_code', reply.statusCode)
    if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR })
    span.end()
  })
  app.addHook('onRequestAbort', async (request) => {
    spans.get(request)?.end()
  })
})

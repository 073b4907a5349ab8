import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

/**
 * Counts every answer by route pattern (never the raw URL: ids would make a series per task)
 * and serves GET /metrics in the Prometheus text format, without a key: expose it to the
 * scraper's network only (docs/operations.md#metrics).
 */
export default fp(async function metrics(app: FastifyInstance) {
  const { metrics: measured } = app.infra
  app.addHook('onResponse', async (request, reply) => {
    measured.httpAnswered(request.routeOptions.url ?? 'unmatched', request.method, reply.statusCode, reply.elapsedTime / 1000)
  })
  app.get('/metrics', { logLevel: 'warn', schema: { hide: true } }, async (_request, reply) => {
    return reply.type(measured.contentType).send(await measured.text())
  })
})

import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { isRelayed, METRICS_REFUSALS, metricsAccess } from '../../infra/metrics/access.js'
import { errorBody } from '../../contract/errors.js'

/**
 * Counts every answer by route pattern (never the raw URL: ids would make a series per task)
 * and serves GET /metrics in the Prometheus text format, unless METRICS_PORT moves it to a
 * port of its own (src/service.ts). Who may read it: src/infra/metrics/access.ts.
 */
export default fp(async function metrics(app: FastifyInstance) {
  const { metrics: measured, config } = app.infra
  app.addHook('onResponse', async (request, reply) => {
    measured.httpAnswered(request.routeOptions.url ?? 'unmatched', request.method, reply.statusCode, reply.elapsedTime / 1000)
  })
  if (config.METRICS_PORT !== undefined) return
  app.get('/metrics', { logLevel: 'warn', schema: { hide: true } }, async (request, reply) => {
    const access = metricsAccess({ authorization: request.headers.authorization, peerAddress: request.socket.remoteAddress, relayed: isRelayed(request.headers) }, config.METRICS_TOKEN, false)
    if (access !== 'allowed') {
      const { status, error } = METRICS_REFUSALS[access]
      if (status === 401) void reply.header('www-authenticate', 'Bearer')
      return reply.code(status).send(errorBody(status === 401 ? 'unauthenticated' : 'metrics_local_only', error))
    }
    return reply.type(measured.contentType).send(await measured.text())
  })
})

import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { METRICS_REFUSALS, metricsAccess } from './access.js'
import type { MatsMetrics } from './mats-metrics.js'

/** GET /metrics on a port of its own (METRICS_PORT), in whatever roles the process runs; with METRICS_TOKEN, for its bearer only. */
export async function serveMetrics(metrics: MatsMetrics, host: string, port: number, token: string | undefined): Promise<{ readonly port: number; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url !== '/metrics') return void response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"only GET /metrics here"}')
    const access = metricsAccess({ authorization: request.headers.authorization, peerAddress: request.socket.remoteAddress, relayed: false }, token, true)
    if (access !== 'allowed') {
      const { status, error } = METRICS_REFUSALS[access]
      return void response.writeHead(status, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' }).end(JSON.stringify({ error, code: 'unauthenticated' }))
    }
    metrics.text().then(
      (text) => response.writeHead(200, { 'content-type': metrics.contentType }).end(text),
      () => response.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"could not collect the metrics"}'),
    )
  })
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, resolve))
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

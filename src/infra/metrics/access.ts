import { createHash, timingSafeEqual } from 'node:crypto'

/**
 * Who may read GET /metrics. Its series say nothing secret, but they show the load, the error
 * rates and the route patterns to anyone who asks: not something to serve to the internet.
 *
 * - METRICS_TOKEN set: only `Authorization: Bearer <METRICS_TOKEN>`, on every port it is served.
 * - otherwise, on a port of its own (METRICS_PORT): anyone who can reach that port.
 * - otherwise, on the API port: only clients on this machine (a loopback peer) that no proxy
 *   relayed (no Forwarded or X-Forwarded-For), so `curl localhost:8080/metrics` on a laptop
 *   works and a proxy on the same host does not expose it.
 */
export type MetricsAccess = 'allowed' | 'token_required' | 'local_only'

export interface MetricsRequest {
  readonly authorization: string | undefined
  readonly peerAddress: string | undefined
  readonly relayed: boolean
}

export function metricsAccess(request: MetricsRequest, token: string | undefined, ownPort: boolean): MetricsAccess {
  if (token !== undefined) return bearerMatches(request.authorization, token) ? 'allowed' : 'token_required'
  if (ownPort) return 'allowed'
  return isLoopback(request.peerAddress) && !request.relayed ? 'allowed' : 'local_only'
}

/** The refusal a caller reads, saying what to do. */
export const METRICS_REFUSALS: Readonly<Record<Exclude<MetricsAccess, 'allowed'>, { status: 401 | 403; error: string }>> = {
  token_required: { status: 401, error: 'GET /metrics needs "Authorization: Bearer <METRICS_TOKEN>"' },
  local_only: {
    status: 403,
    error: 'GET /metrics on the API port answers clients on this machine only: set METRICS_TOKEN (and send it as a bearer token) or METRICS_PORT to scrape it from elsewhere',
  },
}

function bearerMatches(authorization: string | undefined, token: string): boolean {
  const given = /^Bearer +(\S+)$/i.exec(authorization ?? '')?.[1]
  // Digests of equal length, so that the comparison takes the same time whatever was sent.
  return given !== undefined && timingSafeEqual(digest(given), digest(token))
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest()
}

function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false
  return address === '::1' || /^(::ffff:)?127\.\d+\.\d+\.\d+$/i.test(address)
}

/** Whether a request carries the headers a proxy adds. */
export function isRelayed(headers: Readonly<Record<string, string | string[] | undefined>>): boolean {
  return headers.forwarded !== undefined || headers['x-forwarded-for'] !== undefined
}

import type { FastifyRequest } from 'fastify'

/**
 * Whether the browser says the request comes from a page of this very origin: `Origin` must
 * be present and equal to the origin the request was sent to (scheme, host and port, as
 * fastify reads them, behind a trusted proxy too) or to PUBLIC_BASE_URL's. A missing Origin
 * is refused: every browser sends one on a POST, PATCH or DELETE.
 */
export function isSameOrigin(request: FastifyRequest, publicBaseUrl: string | undefined): boolean {
  return originMatches(request.headers.origin, `${request.protocol}://${request.host}`, publicBaseUrl)
}

/** `origin` (the header) names `own` or `publicBaseUrl`'s origin: scheme, host and port, default ports and case aside. */
export function originMatches(origin: string | undefined, own: string, publicBaseUrl: string | undefined): boolean {
  const given = origin ? originOf(origin) : null
  if (!given) return false
  return given === originOf(own) || (publicBaseUrl !== undefined && given === originOf(publicBaseUrl))
}

function originOf(url: string): string | null {
  try {
    const parsed = new URL(url)
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : null
  } catch {
    return null
  }
}

/**
 * DNS-rebinding protection for /mcp. A hostile web page can make a browser send requests
 * to a service on the user's machine or network (its DNS name rebound to 127.0.0.1, say);
 * the browser then still names the page's own origin in `Origin`. So:
 *
 * - no `Origin` header: allowed. Non-browser MCP clients (SDKs, CLIs, desktop apps) send none.
 * - an origin on a loopback host (`localhost`, `127.0.0.1`, `[::1]`, any port): allowed;
 *   such a page runs on the user's own machine, e.g. the MCP Inspector.
 * - the service's own public origin (from PUBLIC_BASE_URL), for a web page served with it,
 *   and the origins listed in MCP_ALLOWED_ORIGINS (scheme, host and port compared): allowed.
 * - anything else, including `Origin: null` (sandboxed frames, files): refused with 403.
 */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]'])

export type OriginPolicy = (origin: string | undefined) => boolean

export function originPolicy(allowedOrigins: string, publicBaseUrl?: string): OriginPolicy {
  const listed = [...allowedOrigins.split(','), publicBaseUrl ?? ''].map((o) => o.trim()).filter(Boolean)
  const allowed = new Set(listed.flatMap((o) => normalise(o) ?? []))
  return (origin) => {
    if (origin === undefined) return true
    const normalised = normalise(origin)
    if (normalised === null) return false
    return allowed.has(normalised) || isLoopback(origin)
  }
}

/** `https://Example.com:443` and `https://example.com` are the same origin. */
function normalise(origin: string): string | null {
  try {
    const url = new URL(origin)
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : null
  } catch {
    return null
  }
}

function isLoopback(origin: string): boolean {
  const { protocol, hostname } = new URL(origin)
  return (protocol === 'http:' || protocol === 'https:') && LOOPBACK_HOSTS.has(hostname)
}

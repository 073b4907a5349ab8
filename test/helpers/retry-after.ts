import { setTimeout as sleep } from 'node:timers/promises'

/**
 * How long a helper keeps sending a request again after 503s before it hands the last 503 to
 * the test: a few of the service's 2 s Retry-After, well within tap's per-file timeout.
 */
export const RETRY_503_BUDGET_MS = 20_000

const SERVICE_UNAVAILABLE = 503
const CONFLICT = 409

/**
 * A 503 with `Retry-After` is the service's right answer while NATS or MongoDB is out of reach
 * or too slow to answer in time (design.md invariant 11), which a starved CI machine can make
 * happen on any call. A real client waits what the server says and sends the request again; so
 * do the test helpers, within `budgetMs`. Any other status, and a 503 without Retry-After or
 * asking for longer than the budget leaves, goes back to the test as it came. A 409 with
 * Retry-After (an Idempotency-Key whose first request is still in flight, e.g. a 503 being
 * settled) is sent again the same way. Each retried answer is written to stderr with its error,
 * so that one on a path that should never be unavailable shows in the test's output instead of
 * passing unseen.
 */
export async function honouringRetryAfter(what: string, send: () => Promise<Response>, budgetMs = RETRY_503_BUDGET_MS): Promise<Response> {
  const deadline = Date.now() + budgetMs
  for (;;) {
    const response = await send()
    if (response.status !== SERVICE_UNAVAILABLE && response.status !== CONFLICT) return response
    const waitMs = retryAfterMs(response.headers.get('retry-after'))
    if (waitMs === null || Date.now() + waitMs > deadline) return response
    const body = await response.text()
    process.stderr.write(`[test client] ${what}: ${response.status} ${body.slice(0, 200)}; sending it again in ${waitMs} ms, as its Retry-After asks\n`)
    await sleep(waitMs)
  }
}

/** `Retry-After` in ms: delay-seconds or an HTTP-date (RFC 9110 §10.2.3); null when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (header === null) return null
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000
  const at = Date.parse(header)
  return Number.isNaN(at) ? null : Math.max(0, at - now)
}

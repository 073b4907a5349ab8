/**
 * Calls to the public API with the session cookie (same origin, sent by the browser). Writes
 * carry the CSRF token, kept in this module's memory only: never in storage or a URL.
 */
let csrfToken = ''
let onSignedOut: () => void = () => undefined

export function setCsrfToken(token: string): void {
  csrfToken = token
}

/** Called when the API says the session has ended (401): the app goes back to the sign-in. */
export function whenSignedOut(listener: () => void): void {
  onSignedOut = listener
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])
let lastUseAt = Date.now()

/** When the console last made a request someone asked for (the server's idle clock runs from the same requests). */
export const lastUse = () => lastUseAt

/**
 * How long a read keeps asking again while the API answers 503 with Retry-After (NATS or
 * MongoDB out of reach for a moment, or a request that could not be answered in time): what
 * the API asks of every client. Writes are not sent again: the person sees why and decides.
 */
const READ_RETRIES_FOR_MS = 20_000
/** The longest wait between two tries, whatever Retry-After says. */
const MAX_RETRY_WAIT_MS = 5000

/**
 * A call of the API. `background` marks a read nobody asked for (a live list read again, a
 * poll): the server answers it without counting it as use of the session (X-Console-Background),
 * so that a console left open still reaches its idle timeout.
 */
export async function api<T>(method: string, path: string, body?: unknown, options: { background?: boolean; signal?: AbortSignal } = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' }
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (WRITES.has(method)) headers['x-csrf-token'] = csrfToken
  if (options.background) headers['x-console-background'] = '1'
  else lastUseAt = Date.now()
  const init: RequestInit = { method, headers, credentials: 'same-origin', ...(body === undefined ? {} : { body: JSON.stringify(body) }), ...(options.signal ? { signal: options.signal } : {}) }
  const response = await (method === 'GET' ? fetchRetryingUnavailable(path, init) : fetch(path, init))
  const text = await response.text()
  const parsed: unknown = text ? JSON.parse(text) : null
  if (!response.ok) {
    const error = errorOf(parsed)
    if (response.status === 401 && !path.startsWith('/console/api/session')) onSignedOut()
    throw new ApiError(response.status, error.code, error.message)
  }
  return parsed as T
}

/**
 * A read sent again after each 503 that says when to, as long as the next try starts within
 * READ_RETRIES_FOR_MS; the last answer otherwise. The read's signal (a screen that went away)
 * ends the waits too.
 */
async function fetchRetryingUnavailable(path: string, init: RequestInit): Promise<Response> {
  const giveUpAt = Date.now() + READ_RETRIES_FOR_MS
  for (;;) {
    const response = await fetch(path, init)
    const retryAfterS = Number(response.headers.get('retry-after') ?? Number.NaN)
    const waitMs = Math.min(Math.max(retryAfterS * 1000, 100), MAX_RETRY_WAIT_MS)
    if (response.status !== 503 || !Number.isFinite(retryAfterS) || Date.now() + waitMs >= giveUpAt) return response
    await response.body?.cancel()
    await pause(waitMs, init.signal ?? undefined)
  }
}

/** Resolves after `ms`, or rejects as soon as `signal` aborts. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const timer = setTimeout(resolve, ms)
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer)
        reject(signal.reason)
      },
      { once: true },
    )
  })
}

function errorOf(body: unknown): { code: string; message: string } {
  if (typeof body === 'object' && body !== null && 'error' in body && 'code' in body) return { code: String(body.code), message: String(body.error) }
  return { code: 'unknown', message: 'The server did not answer as expected' }
}

export const get = <T>(path: string, options: { background?: boolean; signal?: AbortSignal } = {}) => api<T>('GET', path, undefined, options)
export const post = <T>(path: string, body: unknown = {}) => api<T>('POST', path, body)
export const patch = <T>(path: string, body: unknown) => api<T>('PATCH', path, body)

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
 * A call of the API. `background` marks a read nobody asked for (a live list read again, a
 * poll): the server answers it without counting it as use of the session (X-Console-Background),
 * so that a console left open still reaches its idle timeout.
 */
export async function api<T>(method: string, path: string, body?: unknown, options: { background?: boolean } = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' }
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (WRITES.has(method)) headers['x-csrf-token'] = csrfToken
  if (options.background) headers['x-console-background'] = '1'
  else lastUseAt = Date.now()
  const response = await fetch(path, { method, headers, credentials: 'same-origin', ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
  const text = await response.text()
  const parsed: unknown = text ? JSON.parse(text) : null
  if (!response.ok) {
    const error = errorOf(parsed)
    if (response.status === 401 && !path.startsWith('/console/api/session')) onSignedOut()
    throw new ApiError(response.status, error.code, error.message)
  }
  return parsed as T
}

function errorOf(body: unknown): { code: string; message: string } {
  if (typeof body === 'object' && body !== null && 'error' in body && 'code' in body) return { code: String(body.code), message: String(body.error) }
  return { code: 'unknown', message: 'The server did not answer as expected' }
}

export const get = <T>(path: string, options: { background?: boolean } = {}) => api<T>('GET', path, undefined, options)
export const post = <T>(path: string, body: unknown = {}) => api<T>('POST', path, body)
export const patch = <T>(path: string, body: unknown) => api<T>('PATCH', path, body)

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

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' }
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (WRITES.has(method)) headers['x-csrf-token'] = csrfToken
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

export const get = <T>(path: string) => api<T>('GET', path)
export const post = <T>(path: string, body: unknown = {}) => api<T>('POST', path, body)
export const patch = <T>(path: string, body: unknown) => api<T>('PATCH', path, body)

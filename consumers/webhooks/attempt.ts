import http from 'node:http'
import https from 'node:https'
import type { LookupFunction } from 'node:net'
import { isIP } from 'node:net'
import { hostOf, publicAddressesOf } from '../../src/infra/net/public-address.js'

export interface AttemptOutcome {
  readonly statusCode: number | null
  readonly error: string | null
  /** No answer within the time limit: what pauses an endpoint that keeps doing it (ADR 0027). */
  readonly timedOut?: boolean
}

export interface AttemptOptions {
  readonly timeoutMs: number
  readonly allowPrivate: boolean
}

/**
 * POSTs one signed delivery. The host is resolved and every address checked at this moment,
 * and the connection goes to the addresses that were checked (a DNS answer that changed
 * since registration, or between a check and the connect, cannot point it inward).
 * Redirects are not followed: a 3xx is a failed attempt, like any status outside 2xx.
 */
export async function attemptDelivery(url: string, headers: Record<string, string>, body: string, options: AttemptOptions): Promise<AttemptOutcome> {
  const target = new URL(url)
  const host = hostOf(target)
  try {
    // Literal addresses never reach `lookup`: check them here.
    if (isIP(host)) await publicAddressesOf(host, options.allowPrivate)
  } catch (err) {
    return { statusCode: null, error: messageOf(err) }
  }
  const client = target.protocol === 'https:' ? https : http
  return new Promise((resolve) => {
    const request = client.request(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'mats-webhooks/1' },
        lookup: checkedLookup(options.allowPrivate),
        signal: AbortSignal.timeout(options.timeoutMs),
      },
      (response) => {
        // The status is the answer; the body is read and dropped so the socket is freed.
        response.resume()
        resolve({ statusCode: response.statusCode ?? null, error: null })
      },
    )
    request.on('error', (err) => {
      const timedOut = err.name === 'AbortError' || err.name === 'TimeoutError'
      resolve({ statusCode: null, error: timedOut ? `no answer within ${options.timeoutMs} ms` : messageOf(err), timedOut })
    })
    request.end(body)
  })
}

function checkedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    publicAddressesOf(hostname, allowPrivate).then(
      (addresses) => {
        if (lookupOptions.all) return callback(null, addresses)
        const first = addresses[0] as { address: string; family: number }
        callback(null, first.address, first.family)
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    )
  }
}

function messageOf(err: unknown): string {
  if (!(err instanceof Error)) return String(err)
  const code = 'code' in err && typeof err.code === 'string' ? `${err.code}: ` : ''
  return `${code}${err.message}`.slice(0, 300)
}

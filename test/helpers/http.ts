import { randomUUID } from 'node:crypto'
import { honouringRetryAfter, RETRY_503_BUDGET_MS } from './retry-after.js'

export interface ApiResponse<T = Record<string, unknown>> {
  readonly status: number
  readonly body: T
  readonly headers: Headers
}

/**
 * A tiny client for the REST API over real HTTP. Like a real client, it sends a request again
 * after a 503's Retry-After, for up to `retry503BudgetMs` (retry-after.ts); a test that looks
 * at the 503 itself (an outage, a readiness probe) uses `withoutRetry()`. As a careful client
 * does, it makes those retries safe: a POST without an `Idempotency-Key` of the test's own gets
 * one, so that a retry of a 503 whose write was stored after all is answered that write (201,
 * replayed) instead of a 409 naming it (ADR 0046). A test about requests without a key uses
 * `withoutIdempotencyKeys()`.
 */
export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly key: string | null = null,
    readonly retry503BudgetMs = RETRY_503_BUDGET_MS,
    readonly keysPosts = true,
  ) {}

  withKey(key: string | null): ApiClient {
    return new ApiClient(this.baseUrl, key, this.retry503BudgetMs, this.keysPosts)
  }

  /** The same key against another API process. */
  withBaseUrl(baseUrl: string): ApiClient {
    return new ApiClient(baseUrl, this.key, this.retry503BudgetMs, this.keysPosts)
  }

  /** The same client, answering each 503 as it comes: for tests that look at the 503 itself. */
  withoutRetry(): ApiClient {
    return new ApiClient(this.baseUrl, this.key, 0, false)
  }

  /** The same client, sending POSTs without an Idempotency-Key unless the test gives one. */
  withoutIdempotencyKeys(): ApiClient {
    return new ApiClient(this.baseUrl, this.key, this.retry503BudgetMs, false)
  }

  get<T = Record<string, unknown>>(path: string, headers: Record<string, string> = {}): Promise<ApiResponse<T>> {
    return this.request<T>('GET', path, undefined, headers)
  }

  post<T = Record<string, unknown>>(path: string, body: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<T>> {
    return this.request<T>('POST', path, body, headers)
  }

  async request<T>(method: string, path: string, body?: unknown, extra: Record<string, string> = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...extra }
    if (this.key) headers.authorization = `Bearer ${this.key}`
    if (body !== undefined) headers['content-type'] = 'application/json'
    if (method === 'POST' && this.keysPosts && !Object.keys(headers).some((name) => name.toLowerCase() === 'idempotency-key')) headers['idempotency-key'] = randomUUID()
    const send = () => fetch(`${this.baseUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
    const response = await honouringRetryAfter(`${method} ${path}`, send, this.retry503BudgetMs)
    const text = await response.text()
    return { status: response.status, body: (text ? JSON.parse(text) : null) as T, headers: response.headers }
  }
}

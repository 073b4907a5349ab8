import { honouringRetryAfter, RETRY_503_BUDGET_MS } from './retry-after.js'

export interface ApiResponse<T = Record<string, unknown>> {
  readonly status: number
  readonly body: T
  readonly headers: Headers
}

/**
 * A tiny client for the REST API over real HTTP. Like a real client, it sends a request again
 * after a 503's Retry-After, for up to `retry503BudgetMs` (retry-after.ts); a test that looks
 * at the 503 itself (an outage, a readiness probe) uses `withoutRetry()`.
 */
export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly key: string | null = null,
    readonly retry503BudgetMs = RETRY_503_BUDGET_MS,
  ) {}

  withKey(key: string | null): ApiClient {
    return new ApiClient(this.baseUrl, key, this.retry503BudgetMs)
  }

  /** The same key against another API process. */
  withBaseUrl(baseUrl: string): ApiClient {
    return new ApiClient(baseUrl, this.key, this.retry503BudgetMs)
  }

  /** The same client, answering each 503 as it comes: for tests that look at the 503 itself. */
  withoutRetry(): ApiClient {
    return new ApiClient(this.baseUrl, this.key, 0)
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
    const send = () => fetch(`${this.baseUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
    const response = await honouringRetryAfter(`${method} ${path}`, send, this.retry503BudgetMs)
    const text = await response.text()
    return { status: response.status, body: (text ? JSON.parse(text) : null) as T, headers: response.headers }
  }
}

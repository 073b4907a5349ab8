export interface ApiResponse<T = Record<string, unknown>> {
  readonly status: number
  readonly body: T
  readonly headers: Headers
}

/** A tiny client for the REST API over real HTTP. */
export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly key: string | null = null,
  ) {}

  withKey(key: string | null): ApiClient {
    return new ApiClient(this.baseUrl, key)
  }

  /** The same key against another API process. */
  withBaseUrl(baseUrl: string): ApiClient {
    return new ApiClient(baseUrl, this.key)
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
    const response = await fetch(`${this.baseUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
    const text = await response.text()
    return { status: response.status, body: (text ? JSON.parse(text) : null) as T, headers: response.headers }
  }
}

import { honouringRetryAfter, RETRY_503_BUDGET_MS } from './retry-after.js'

/** One block of a Server-Sent Events stream: an event (id, event, data) or a comment line. */
export interface SseBlock {
  readonly id?: string
  readonly event?: string
  readonly data?: string
  readonly comment?: string
}

export interface SseStream {
  readonly status: number
  readonly headers: Headers
  /** The body as text when the answer is not a stream (an error). */
  readonly text: string
  /** The next block, or null once the server ended the stream. */
  next(): Promise<SseBlock | null>
  /** Events until the stream ends, comments skipped. */
  rest(): Promise<SseBlock[]>
  /** Goes away mid-stream, as a closed browser tab does. */
  close(): void
}

/**
 * A minimal SSE client over fetch (which, unlike EventSource, can send Authorization). A 503 is
 * opened again after its Retry-After, within `retry503BudgetMs`, as a real client would
 * (retry-after.ts); 0 answers it as it comes.
 */
export async function openSse(url: string, key: string, headers: Record<string, string> = {}, retry503BudgetMs = RETRY_503_BUDGET_MS): Promise<SseStream> {
  const abort = new AbortController()
  // An empty key sends none (a console cookie in `headers` authenticates instead).
  const open = () => fetch(url, { headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), accept: 'text/event-stream', ...headers }, signal: abort.signal })
  const response = await honouringRetryAfter(`GET ${new URL(url).pathname} (event stream)`, open, retry503BudgetMs)
  const streaming = response.ok && (response.headers.get('content-type') ?? '').startsWith('text/event-stream')
  const text = streaming ? '' : await response.text()
  const reader = streaming ? response.body?.getReader() : undefined
  const decoder = new TextDecoder()
  let buffer = ''

  const next = async (): Promise<SseBlock | null> => {
    for (;;) {
      const end = buffer.indexOf('\n\n')
      if (end >= 0) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        return parseBlock(block)
      }
      const chunk = await reader?.read()
      if (!chunk || chunk.done) return null
      buffer += decoder.decode(chunk.value, { stream: true })
    }
  }
  const rest = async (): Promise<SseBlock[]> => {
    const events: SseBlock[] = []
    for (let block = await next(); block; block = await next()) if (block.comment === undefined) events.push(block)
    return events
  }
  return { status: response.status, headers: response.headers, text, next, rest, close: () => abort.abort() }
}

function parseBlock(block: string): SseBlock {
  const fields: Record<string, string> = {}
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) return { comment: line.slice(1).trim() }
    const colon = line.indexOf(':')
    fields[line.slice(0, colon)] = line.slice(colon + 1).replace(/^ /, '')
  }
  return fields
}

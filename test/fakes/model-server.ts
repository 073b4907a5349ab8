import { once } from 'node:events'
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A fake language-model provider: a real HTTP server on loopback that speaks the OpenAI
 * chat-completions or the Anthropic Messages wire format. What the model "says" is a
 * script over a provider-neutral view of each request.
 */
export type Wire = 'openai' | 'anthropic'

export interface ModelCall {
  readonly name: string
  /** An object is sent as JSON; a string is sent as it is (to send malformed JSON). */
  readonly args: Record<string, unknown> | string
}

export type ModelReply =
  /** `usage: null` leaves the usage field out, as some servers do. */
  | { readonly text: string; readonly calls?: readonly ModelCall[]; readonly usage?: Usage | null; readonly truncated?: boolean }
  /** A well-formed reply with nothing in it: `choices: []` / `content: []`. */
  | { readonly empty: true; readonly usage?: Usage }
  /** An error in the wire's format: OpenAI `{error: {message, type, code}}`, Anthropic `{type: "error", error: {type, message}}`. */
  | { readonly status: number; readonly error: string; readonly headers?: Record<string, string> }
  /** A body sent as it is (a proxy's HTML page, JSON cut short), 200 unless told. */
  | { readonly raw: string; readonly contentType: string; readonly status?: number }
  | { readonly hang: true }

interface Usage {
  readonly input: number
  readonly output: number
}

/** What a request says, whichever wire it came in. */
export interface ModelRequestView {
  readonly wire: Wire
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly model: string
  readonly system: string
  /** The brief: the first user message. */
  readonly brief: string
  readonly toolNames: readonly string[]
  /** Tool results sent back in this request (those of the model's last turn). */
  readonly toolResults: readonly { readonly content: string; readonly isError: boolean }[]
  /** How many turns the model has had in this conversation. */
  readonly turn: number
  readonly body: Record<string, unknown>
}

export type ModelScript = (request: ModelRequestView) => ModelReply | Promise<ModelReply>

export interface FakeModelServer {
  /** The base URL to give the SDK (`.../v1` for OpenAI, the root for Anthropic). */
  readonly baseUrl: string
  readonly requests: ModelRequestView[]
  /** Requests that arrived but have not been answered yet. */
  readonly inFlight: () => number
  /** Requests held without an answer (`hang`) whose caller has not closed the connection yet. */
  readonly held: () => number
}

const DEFAULT_USAGE = { input: 1000, output: 200 }

/** What closes the server when its user is done: a tap test, or a benchmark's list of things to stop. */
export interface Teardown {
  teardown(fn: () => void): void
}

export async function startFakeModelServer(t: Teardown, wire: Wire, script: ModelScript): Promise<FakeModelServer> {
  const requests: ModelRequestView[] = []
  let pending = 0
  let held = 0
  let sequence = 0
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>
    const view = (wire === 'openai' ? viewOpenAI : viewAnthropic)(req.url ?? '', req.headers, body)
    requests.push(view)
    const refusal = (wire === 'openai' ? openAIRefusal : anthropicRefusal)(body)
    if (refusal) return send(res, 400, errorBody(wire, 400, refusal))
    pending++
    const reply = await script(view)
    if ('hang' in reply) {
      held++
      res.once('close', () => held--)
      return
    }
    pending--
    if ('raw' in reply) return void res.writeHead(reply.status ?? 200, { 'content-type': reply.contentType }).end(reply.raw)
    if ('status' in reply) return send(res, reply.status, errorBody(wire, reply.status, reply.error), reply.headers)
    sequence++
    const content = 'empty' in reply ? { text: '', ...(reply.usage ? { usage: reply.usage } : {}) } : reply
    const answer = (wire === 'openai' ? openAIReply : anthropicReply)(view.model, content, sequence)
    send(res, 200, 'empty' in reply && wire === 'openai' ? { ...answer, choices: [] } : answer)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => {
    server.closeAllConnections()
    server.close()
  })
  const { port } = server.address() as AddressInfo
  const root = `http://127.0.0.1:${port}`
  return { baseUrl: wire === 'openai' ? `${root}/v1` : root, requests, inFlight: () => pending, held: () => held }
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers })
  res.end(JSON.stringify(body))
}

function errorBody(wire: Wire, status: number, message: string): unknown {
  const type = status === 429 ? 'rate_limit_error' : status >= 500 ? 'api_error' : 'invalid_request_error'
  return wire === 'openai' ? { error: { message, type, code: null, param: null } } : { type: 'error', error: { type, message } }
}

type Json = Record<string, unknown>

/** What the real APIs refuse and a client could get wrong: an empty assistant turn in the history. */
function openAIRefusal(body: Json): string | null {
  const empty = asArray(body.messages).some((m) => m.role === 'assistant' && !m.content && asArray(m.tool_calls).length === 0)
  return empty ? 'messages: an assistant message must have content or tool_calls' : null
}

function anthropicRefusal(body: Json): string | null {
  const empty = asArray(body.messages).some((m) => m.role === 'assistant' && (m.content === '' || (Array.isArray(m.content) && m.content.length === 0)))
  return empty ? 'messages: all messages must have non-empty content' : null
}
const asArray = (value: unknown): Json[] => (Array.isArray(value) ? (value as Json[]) : [])
const text = (value: unknown): string => (typeof value === 'string' ? value : '')

function viewOpenAI(path: string, headers: IncomingHttpHeaders, body: Json): ModelRequestView {
  const messages = asArray(body.messages)
  const trailingTools: Json[] = []
  for (let i = messages.length - 1; i >= 0 && messages[i]?.role === 'tool'; i--) trailingTools.unshift(messages[i] ?? {})
  return {
    wire: 'openai',
    path,
    headers,
    body,
    model: text(body.model),
    system: text(messages.find((m) => m.role === 'system')?.content),
    brief: text(messages.find((m) => m.role === 'user')?.content),
    toolNames: asArray(body.tools).map((tool) => text((tool.function as Json | undefined)?.name)),
    toolResults: trailingTools.map((m) => ({ content: text(m.content), isError: false })),
    turn: messages.filter((m) => m.role === 'assistant').length,
  }
}

function viewAnthropic(path: string, headers: IncomingHttpHeaders, body: Json): ModelRequestView {
  const messages = asArray(body.messages)
  const last = messages.at(-1)
  const lastBlocks = last?.role === 'user' ? asArray(last.content) : []
  return {
    wire: 'anthropic',
    path,
    headers,
    body,
    model: text(body.model),
    system: text(body.system),
    brief: text(messages[0]?.content),
    toolNames: asArray(body.tools).map((tool) => text(tool.name)),
    toolResults: lastBlocks.filter((b) => b.type === 'tool_result').map((b) => ({ content: text(b.content), isError: b.is_error === true })),
    turn: messages.filter((m) => m.role === 'assistant').length,
  }
}

function openAIReply(model: string, reply: Extract<ModelReply, { text: string }>, n: number): Json {
  const usage = reply.usage === undefined ? DEFAULT_USAGE : reply.usage
  const calls = reply.calls ?? []
  return {
    id: `chatcmpl-${n}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        finish_reason: reply.truncated ? 'length' : calls.length > 0 ? 'tool_calls' : 'stop',
        message: {
          role: 'assistant',
          content: reply.text === '' ? null : reply.text,
          refusal: null,
          ...(calls.length > 0
            ? {
                tool_calls: calls.map((call, i) => ({
                  id: `call_${n}_${i}`,
                  type: 'function',
                  function: { name: call.name, arguments: typeof call.args === 'string' ? call.args : JSON.stringify(call.args) },
                })),
              }
            : {}),
        },
      },
    ],
    ...(usage ? { usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output } } : {}),
  }
}

function anthropicReply(model: string, reply: Extract<ModelReply, { text: string }>, n: number): Json {
  const usage = reply.usage === undefined ? DEFAULT_USAGE : reply.usage
  const calls = reply.calls ?? []
  return {
    id: `msg_${n}`,
    type: 'message',
    role: 'assistant',
    model,
    content: [
      ...(reply.text === '' ? [] : [{ type: 'text', text: reply.text }]),
      ...calls.map((call, i) => ({ type: 'tool_use', id: `toolu_${n}_${i}`, name: call.name, input: typeof call.args === 'string' ? call.args : call.args })),
    ],
    stop_reason: reply.truncated ? 'max_tokens' : calls.length > 0 ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    ...(usage ? { usage: { input_tokens: usage.input, output_tokens: usage.output, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } } : {}),
  }
}

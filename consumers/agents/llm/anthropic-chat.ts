import Anthropic from '@anthropic-ai/sdk'
import type { ContentBlockParam, Message, MessageCreateParamsNonStreaming, MessageParam, Tool, ToolResultBlockParam, Usage } from '@anthropic-ai/sdk/resources/messages'
import { type ChatMessage, type ChatModel, type ChatRequest, type ChatTurn, estimateTokens, type ToolSpec } from './chat.js'
import { describeReply, malformedReply, sdkLogger, toProviderError, type ClientSettings } from './client-settings.js'

/**
 * Anthropic Messages with tool use through the official `@anthropic-ai/sdk`. The SDK
 * retries 408/409/429/5xx, timeouts and lost connections with backoff.
 */
export class AnthropicChatModel implements ChatModel {
  readonly provider = 'anthropic'
  readonly #client: Anthropic
  readonly #apiKey: string | undefined
  readonly #maxOutputTokens: number

  constructor(settings: ClientSettings & { readonly maxOutputTokens: number }) {
    this.#apiKey = settings.apiKey
    this.#client = new Anthropic({
      apiKey: settings.apiKey ?? null, // loadConfig requires one for Anthropic
      baseURL: settings.baseUrl ?? null,
      timeout: settings.requestTimeoutMs,
      maxRetries: settings.maxRetries,
      logger: sdkLogger(settings.log),
      logLevel: 'warn',
      openTelemetry: false,
    })
    this.#maxOutputTokens = settings.maxOutputTokens
  }

  async complete(request: ChatRequest, signal: AbortSignal): Promise<ChatTurn> {
    const wire: MessageCreateParamsNonStreaming = {
      model: request.model,
      max_tokens: this.#maxOutputTokens,
      system: request.system,
      messages: toWire(request.messages),
      ...(request.tools.length > 0 ? { tools: request.tools.map(toolToWire) } : {}),
    }
    let message: Message
    try {
      message = await this.#client.messages.create(wire, { signal })
    } catch (err) {
      throw toProviderError(err, signal, Anthropic, this.#apiKey)
    }
    return readMessage(message, wire)
  }
}

/** The SDK's types are what the API promises; what a server (or a proxy) sent is checked. */
function readMessage(message: Message, wire: MessageCreateParamsNonStreaming): ChatTurn {
  if (typeof message !== 'object' || message === null || !Array.isArray(message.content)) {
    throw malformedReply(`no content array in ${describeReply(message)}`)
  }
  const text = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n\n')
  const toolCalls = message.content.flatMap((block) => (block.type === 'tool_use' ? [{ id: block.id, name: block.name, arguments: JSON.stringify(block.input ?? {}) }] : []))
  // A server that reports no usage is estimated, as the OpenAI client does.
  const usage: Partial<Usage> = message.usage ?? {}
  const reportedInput = usage.input_tokens == null ? null : usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0)
  return {
    text,
    toolCalls,
    truncated: message.stop_reason === 'max_tokens',
    inputTokens: reportedInput ?? estimateTokens(JSON.stringify({ system: wire.system, messages: wire.messages })),
    outputTokens: usage.output_tokens ?? estimateTokens(text + JSON.stringify(toolCalls)),
  }
}

function toolToWire(tool: ToolSpec): Tool {
  return { name: tool.name, description: tool.description, input_schema: { type: 'object', ...tool.parameters } }
}

/** Tool results go back as one user message of tool_result blocks per assistant turn. */
function toWire(messages: readonly ChatMessage[]): MessageParam[] {
  const wire: MessageParam[] = []
  let results: ToolResultBlockParam[] = []
  const flushResults = (): void => {
    if (results.length > 0) wire.push({ role: 'user', content: results })
    results = []
  }
  for (const message of messages) {
    if (message.role === 'tool') {
      results.push({ type: 'tool_result', tool_use_id: message.toolCallId, content: message.content, is_error: message.isError })
      continue
    }
    flushResults()
    if (message.role === 'user') wire.push({ role: 'user', content: message.content })
    else wire.push({ role: 'assistant', content: assistantBlocks(message) })
  }
  flushResults()
  return wire
}

function assistantBlocks(message: Extract<ChatMessage, { role: 'assistant' }>): ContentBlockParam[] {
  return [
    ...(message.content === '' ? [] : [{ type: 'text' as const, text: message.content }]),
    // Arguments of a tool_use block were written by JSON.stringify above, so they parse.
    ...message.toolCalls.map((call) => ({ type: 'tool_use' as const, id: call.id, name: call.name, input: JSON.parse(call.arguments) as unknown })),
  ]
}

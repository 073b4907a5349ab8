import OpenAI from 'openai'
import type { ChatCompletion, ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions'
import { type ChatMessage, type ChatModel, type ChatRequest, type ChatTurn, estimateTokens, type ToolSpec } from './chat.js'
import { describeReply, malformedReply, sdkLogger, toProviderError, type ClientSettings } from './client-settings.js'

/**
 * Chat completions with tool calling through the official `openai` SDK: OpenAI itself, or
 * any server speaking its wire format (Ollama, vLLM, llama.cpp's server) at `baseUrl`.
 * The SDK retries 408/409/429/5xx, timeouts and lost connections with backoff.
 */
export class OpenAIChatModel implements ChatModel {
  readonly provider = 'openai'
  readonly #client: OpenAI
  readonly #apiKey: string | undefined

  constructor(settings: ClientSettings) {
    this.#apiKey = settings.apiKey
    this.#client = new OpenAI({
      // Local servers need no key, but the SDK insists on one.
      apiKey: settings.apiKey ?? 'no-key',
      baseURL: settings.baseUrl ?? null,
      timeout: settings.requestTimeoutMs,
      maxRetries: settings.maxRetries,
      logger: sdkLogger(settings.log),
      logLevel: 'warn',
    })
  }

  async complete(request: ChatRequest, signal: AbortSignal): Promise<ChatTurn> {
    const messages: ChatCompletionMessageParam[] = [{ role: 'system', content: request.system }, ...request.messages.map(toWire)]
    let completion: ChatCompletion
    try {
      completion = await this.#client.chat.completions.create(
        { model: request.model, messages, ...(request.tools.length > 0 ? { tools: request.tools.map(toolToWire) } : {}) },
        // The SDK adds an abort listener to the signal on every call and never removes it: give it one of its own.
        { signal: AbortSignal.any([signal]) },
      )
    } catch (err) {
      throw toProviderError(err, signal, OpenAI, this.#apiKey)
    }
    return readCompletion(completion, messages)
  }
}

/** The SDK's types are what the API promises; what a server (or a proxy) sent is checked. */
function readCompletion(completion: ChatCompletion, messages: readonly ChatCompletionMessageParam[]): ChatTurn {
  if (typeof completion !== 'object' || completion === null || !Array.isArray(completion.choices)) {
    throw malformedReply(`no choices array in ${describeReply(completion)}`)
  }
  // No choice at all is an empty reply, which the loop handles.
  const choice = completion.choices[0]
  const message = choice?.message
  const text = message?.content ?? ''
  const toolCalls = (message?.tool_calls ?? []).flatMap((call, i) => (call.type === 'function' ? [{ id: call.id || `call_${i}`, name: call.function.name, arguments: call.function.arguments }] : []))
  return {
    text,
    toolCalls,
    truncated: choice?.finish_reason === 'length',
    inputTokens: completion.usage?.prompt_tokens ?? estimateTokens(JSON.stringify(messages)),
    outputTokens: completion.usage?.completion_tokens ?? estimateTokens(text + JSON.stringify(toolCalls)),
  }
}

function toolToWire(tool: ToolSpec): ChatCompletionTool {
  return { type: 'function', function: { name: tool.name, description: tool.description, parameters: { ...tool.parameters } } }
}

function toWire(message: ChatMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: message.content }
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content === '' ? null : message.content,
        ...(message.toolCalls.length > 0
          ? { tool_calls: message.toolCalls.map((call) => ({ id: call.id, type: 'function' as const, function: { name: call.name, arguments: call.arguments } })) }
          : {}),
      }
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content }
  }
}

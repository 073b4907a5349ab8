/**
 * A provider-neutral conversation with a language model that can call tools. The
 * OpenAI-compatible and Anthropic clients translate it to and from their wire formats.
 */
export interface ToolCall {
  readonly id: string
  readonly name: string
  /** JSON text, as the model wrote it: it may be malformed. */
  readonly arguments: string
}

export type ChatMessage =
  | { readonly role: 'user'; readonly content: string }
  | { readonly role: 'assistant'; readonly content: string; readonly toolCalls: readonly ToolCall[] }
  | { readonly role: 'tool'; readonly toolCallId: string; readonly content: string; readonly isError: boolean }

export interface ToolSpec {
  readonly name: string
  readonly description: string
  /** JSON Schema of the arguments object. */
  readonly parameters: Readonly<Record<string, unknown>>
}

export interface ChatRequest {
  readonly model: string
  readonly system: string
  readonly messages: readonly ChatMessage[]
  readonly tools: readonly ToolSpec[]
}

export interface ChatTurn {
  readonly text: string
  readonly toolCalls: readonly ToolCall[]
  /** The answer stopped at the output-token limit, not where the model meant to stop. */
  readonly truncated: boolean
  readonly inputTokens: number
  readonly outputTokens: number
}

/** One model call. Rejects with the signal's reason when it aborts, and with a ProviderError otherwise. */
export interface ChatModel {
  readonly provider: 'openai' | 'anthropic'
  complete(request: ChatRequest, signal: AbortSignal): Promise<ChatTurn>
}

/** The provider could not be reached or refused the call, after the client's retries. */
export class ProviderError extends Error {
  override readonly name = 'ProviderError'
  constructor(
    message: string,
    readonly status: number | null,
    options: { cause?: unknown } = {},
  ) {
    super(message, options)
  }
}

/** Roughly four characters a token: for servers that do not report usage. */
export const estimateTokens = (text: string): number => Math.ceil(text.length / 4)

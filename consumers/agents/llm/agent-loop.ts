import { setTimeout as sleep } from 'node:timers/promises'
import { AgentRunError, type RunEffects } from '../provider.js'
import { type ChatMessage, type ChatModel, type ChatTurn, ProviderError } from './chat.js'
import { callTool, emptyRunRecord, type RunRecord, toolsFor } from './tools.js'
import { inSpan, SpanKind } from '../../../src/infra/tracing/spans.js'

export interface LoopLimits {
  readonly maxSteps: number
  /** Turns in a row whose tool calls were all malformed before the run gives up. */
  readonly maxMalformedTurns: number
}

export interface LoopOutcome {
  readonly text: string
  readonly record: RunRecord
}

/** Tokens used so far; kept by the caller so that a failed run is still paid for. */
export interface TokenMeter {
  /** Model calls that returned a reply: none means the provider reported no usage. */
  replies: number
  inputTokens: number
  outputTokens: number
}

/**
 * An empty reply (no text, no tool call) is asked again after a pause, at most this many
 * times in a row: each is paid for, and a provider that keeps sending nothing will not stop.
 */
export const EMPTY_REPLY_RETRIES = 2
const EMPTY_REPLY_BACKOFF_MS = 500

export interface LoopInput {
  readonly model: ChatModel
  readonly modelName: string
  readonly system: string
  readonly brief: string
  readonly isSupervisor: boolean
  readonly effects: RunEffects
  readonly limits: LoopLimits
  readonly meter: TokenMeter
}

/**
 * The bounded tool loop: each step is one model call; tool calls of one turn run in
 * parallel and their results go back to the model; the first turn without tool calls
 * is the deliverable. A run fails after `maxSteps` calls, or after `maxMalformedTurns`
 * turns in a row of malformed calls (each was answered with what was wrong), or after
 * `EMPTY_REPLY_RETRIES` re-asks of empty replies in a row.
 */
export async function runAgentLoop(input: LoopInput, signal: AbortSignal): Promise<LoopOutcome> {
  const tools = toolsFor(input.isSupervisor)
  const specs = tools.map((tool) => tool.spec)
  const messages: ChatMessage[] = [{ role: 'user', content: input.brief }]
  const record: RunRecord = emptyRunRecord()
  let malformedTurns = 0
  let emptyReplies = 0
  // A deliverable cut off at the output limit is continued in the next step, then joined.
  let cutOff: string[] = []
  for (let step = 1; step <= input.limits.maxSteps; step++) {
    const turn = await tracedCall(input, () => input.model.complete({ model: input.modelName, system: input.system, messages, tools: specs }, signal))
    input.meter.replies++
    input.meter.inputTokens += turn.inputTokens
    input.meter.outputTokens += turn.outputTokens
    if (turn.toolCalls.length === 0) {
      if (turn.truncated && turn.text !== '') {
        emptyReplies = 0
        cutOff.push(turn.text)
        messages.push({ role: 'assistant', content: turn.text, toolCalls: [] }, { role: 'user', content: 'Continue exactly where you stopped.' })
        continue
      }
      const text = [...cutOff, turn.text].join('').trim()
      if (text !== '') return { text, record }
      // An empty reply is asked again as it was: the APIs refuse an empty assistant turn in the history.
      emptyReplies++
      if (emptyReplies > EMPTY_REPLY_RETRIES) {
        throw new ProviderError(`the language model provider returned an empty reply (no text, no tool call) ${emptyReplies} times in a row`, null)
      }
      await sleep(EMPTY_REPLY_BACKOFF_MS * 2 ** (emptyReplies - 1), undefined, { signal })
      continue
    }
    cutOff = []
    emptyReplies = 0
    messages.push({ role: 'assistant', content: turn.text, toolCalls: turn.toolCalls })
    const outcomes = await Promise.all(turn.toolCalls.map(async (call) => ({ call, outcome: await callTool(tools, call, input.effects, record) })))
    for (const { call, outcome } of outcomes) messages.push({ role: 'tool', toolCallId: call.id, content: outcome.content, isError: outcome.isError })
    malformedTurns = outcomes.every(({ outcome }) => outcome.malformed) ? malformedTurns + 1 : 0
    if (malformedTurns >= input.limits.maxMalformedTurns) {
      throw new AgentRunError(`the model sent malformed tool calls ${malformedTurns} turns in a row; the last problem: ${outcomes.at(-1)?.outcome.content ?? 'unknown'}`)
    }
  }
  throw new AgentRunError(`the agent used all ${input.limits.maxSteps} of its steps without finishing its deliverable`, { reason: 'step_limit' })
}

/** One call to the model, traced as a client span with what it used (OpenTelemetry's gen_ai conventions). */
function tracedCall(input: LoopInput, call: () => Promise<ChatTurn>): Promise<ChatTurn> {
  const attributes = { 'gen_ai.system': input.model.provider, 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': input.modelName }
  return inSpan(`chat ${input.modelName}`, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    const turn = await call()
    span.setAttributes({ 'gen_ai.usage.input_tokens': turn.inputTokens, 'gen_ai.usage.output_tokens': turn.outputTokens })
    return turn
  })
}

import { AgentRunError, type AgentProvider, type AgentRunRequest, type AgentRunResult, type AgentType, type RunEffects } from '../provider.js'
import { runAgentLoop, type LoopLimits, type TokenMeter } from './agent-loop.js'
import { ProviderError, type ChatModel } from './chat.js'
import type { PriceTable } from './pricing.js'
import { renderResult } from './result.js'
import { briefMessage, systemPrompt } from './system-prompt.js'

export interface LanguageModelProviderOptions {
  readonly model: ChatModel
  /** The model name each agent runs on. */
  readonly modelFor: (agentType: AgentType) => string
  readonly prices: PriceTable
  readonly limits: LoopLimits
}

/** The ten agents as language-model agents: one bounded tool loop per run, paid for by its tokens. */
export class LanguageModelProvider implements AgentProvider {
  readonly name: string

  constructor(private readonly options: LanguageModelProviderOptions) {
    this.name = options.model.provider
  }

  async run(request: AgentRunRequest, effects: RunEffects, signal: AbortSignal): Promise<AgentRunResult> {
    const modelName = this.options.modelFor(request.task.agentType)
    const meter: TokenMeter = { inputTokens: 0, outputTokens: 0 }
    const spent = () => ({
      usage: { provider: this.name, model: modelName, inputTokens: meter.inputTokens, outputTokens: meter.outputTokens },
      costMicros: this.options.prices.costMicros(modelName, meter.inputTokens, meter.outputTokens),
    })
    try {
      const { text, record } = await runAgentLoop({
        model: this.options.model,
        modelName,
        system: systemPrompt(request),
        brief: briefMessage(request),
        isSupervisor: request.agent.isSupervisor,
        effects,
        limits: this.options.limits,
        meter,
      }, signal)
      return { output: renderResult(text, record), ...spent(), learnedFacts: record.facts }
    } catch (err) {
      if (err instanceof AgentRunError) throw new AgentRunError(err.message, { reason: err.reason, spent: spent(), cause: err.cause })
      if (err instanceof ProviderError) throw new AgentRunError(err.message, { reason: 'provider_error', spent: spent(), cause: err })
      // An abort (time limit, shutdown: the worker names it) or a fault of ours; the tokens are still paid for.
      throw new AgentRunError(err instanceof Error ? err.message : String(err), { spent: spent(), cause: err, internal: !signal.aborted })
    }
  }
}

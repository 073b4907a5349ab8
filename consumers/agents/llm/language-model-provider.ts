import { AgentRunError, type AgentProvider, type AgentRunRequest, type AgentRunResult, type AgentType, type RunEffects, type Spent } from '../provider.js'
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
    const meter: TokenMeter = { replies: 0, inputTokens: 0, outputTokens: 0 }
    const spent = (): Spent => ({
      usage: { provider: this.name, model: modelName, inputTokens: meter.inputTokens, outputTokens: meter.outputTokens },
      costMicros: this.options.prices.costMicros(modelName, meter.inputTokens, meter.outputTokens),
    })
    // A run that got no reply has no usage to report (null in TaskFailed), rather than zeros.
    const spentIfAny = (): Spent | null => (meter.replies > 0 ? spent() : null)
    try {
      const { text, record } = await runAgentLoop(
        {
          model: this.options.model,
          modelName,
          system: systemPrompt(request),
          brief: briefMessage(request),
          isSupervisor: request.agent.isSupervisor,
          effects,
          limits: this.options.limits,
          meter,
        },
        signal,
      )
      return { output: renderResult(text, record), ...spent(), learnedFacts: record.facts }
    } catch (err) {
      if (err instanceof AgentRunError) throw new AgentRunError(err.message, { reason: err.reason, spent: spentIfAny(), cause: err.cause })
      if (err instanceof ProviderError) throw new AgentRunError(err.message, { reason: 'provider_error', spent: spentIfAny(), cause: err })
      // An abort (time limit, shutdown: the worker names it) or a fault of ours; the tokens are still paid for.
      throw new AgentRunError(err instanceof Error ? err.message : String(err), { spent: spentIfAny(), cause: err, internal: !signal.aborted })
    }
  }
}

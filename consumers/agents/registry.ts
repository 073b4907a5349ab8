import type { Logger } from 'pino'
import type { Config } from '../../src/config.js'
import { modelsByAgent, parsePriceTable } from '../../src/llm-config.js'
import type { ChatModel } from './llm/chat.js'
import { LanguageModelProvider } from './llm/language-model-provider.js'
import { lazyChatModel } from './llm/lazy-chat-model.js'
import { PriceTable } from './llm/pricing.js'
import { OfflineProvider } from './offline/offline-provider.js'
import type { AgentProvider } from './provider.js'

/** Turns in a row of only malformed tool calls a run tolerates (each is answered with what was wrong). */
const MAX_MALFORMED_TURNS = 3

/** The provider agent runs go through, as LLM_PROVIDER says; the offline one needs no network. */
export function createAgentProvider(config: Config, log: Logger): AgentProvider {
  if (config.LLM_PROVIDER === 'offline') {
    return new OfflineProvider({
      latencyMs: config.OFFLINE_AGENT_LATENCY_MS,
      inputPricePerMTokUsd: config.OFFLINE_PRICE_INPUT_PER_MTOK_USD,
      outputPricePerMTokUsd: config.OFFLINE_PRICE_OUTPUT_PER_MTOK_USD,
    })
  }
  const models = modelsByAgent(config)
  const prices = parsePriceTable(config.LLM_PRICES)
  const unpriced = [...new Set(models.values())].filter((model) => model !== undefined && !prices.has(model))
  if (unpriced.length > 0) {
    log.warn(
      { models: unpriced, inputPerMTokUsd: config.LLM_PRICE_INPUT_PER_MTOK_USD, outputPerMTokUsd: config.LLM_PRICE_OUTPUT_PER_MTOK_USD },
      'LLM_PRICES has no price for these models: the default prices apply to budgets',
    )
  }
  return new LanguageModelProvider({
    model: chatModel(config, log),
    // loadConfig refuses a language-model provider that leaves an agent without a model.
    modelFor: (agentType) => models.get(agentType) ?? '',
    prices: new PriceTable(prices, { input: config.LLM_PRICE_INPUT_PER_MTOK_USD, output: config.LLM_PRICE_OUTPUT_PER_MTOK_USD }),
    limits: { maxSteps: config.LLM_MAX_STEPS, maxMalformedTurns: MAX_MALFORMED_TURNS },
  })
}

/** The vendor SDK loads with the first model call: offline processes never carry either (tens of MiB each). */
function chatModel(config: Config, log: Logger): ChatModel {
  const settings = { apiKey: config.LLM_API_KEY, baseUrl: config.LLM_BASE_URL, requestTimeoutMs: config.LLM_REQUEST_TIMEOUT_MS, maxRetries: config.LLM_MAX_RETRIES, log }
  if (config.LLM_PROVIDER === 'anthropic') {
    return lazyChatModel('anthropic', async () => new (await import('./llm/anthropic-chat.js')).AnthropicChatModel({ ...settings, maxOutputTokens: config.LLM_MAX_OUTPUT_TOKENS }))
  }
  return lazyChatModel('openai', async () => new (await import('./llm/openai-chat.js')).OpenAIChatModel(settings))
}

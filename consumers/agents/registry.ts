import type { Config } from '../../src/config.js'
import { OfflineProvider } from './offline/offline-provider.js'
import type { AgentProvider } from './provider.js'

/** The provider agent runs go through; language-model providers join here (issue 6). */
export function createAgentProvider(config: Config): AgentProvider {
  return new OfflineProvider({
    latencyMs: config.OFFLINE_AGENT_LATENCY_MS,
    inputPricePerMTokUsd: config.OFFLINE_PRICE_INPUT_PER_MTOK_USD,
    outputPricePerMTokUsd: config.OFFLINE_PRICE_OUTPUT_PER_MTOK_USD,
  })
}

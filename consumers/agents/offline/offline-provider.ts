/**
 * The offline agent provider: the default, needs no network and no language model. It waits
 * `latencyMs` (abortable) to behave like a real run, then returns a template-built deliverable.
 */
import { type AgentProvider, AgentRunError, type AgentRunRequest, type AgentRunResult, type RunEffects } from '../provider.js'
import { buildDeliverable, offlinePrompt } from './deliverable.js'
import { estimateTokens } from './text.js'

export interface OfflineProviderOptions {
  readonly latencyMs: number
  /** USD per million input tokens. */
  readonly inputPricePerMTokUsd: number
  /** USD per million output tokens. */
  readonly outputPricePerMTokUsd: number
}

export const OFFLINE_MODEL = 'mats-offline-1'

/** Why an aborted run stops: the signal's own reason when it is an Error, else an AgentRunError. */
export function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason
  if (reason instanceof Error) return reason
  return new AgentRunError(`offline agent run aborted${reason === undefined ? '' : `: ${String(reason)}`}`)
}

/** Resolves after `ms`, or rejects as soon as `signal` aborts (at once if it already has). */
export function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(abortError(signal))
  if (ms <= 0) return Promise.resolve()
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer)
      reject(abortError(signal))
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}

/** Micro-USD: a price per million tokens in USD is exactly micro-USD per token. */
export function costMicrosOf(inputTokens: number, outputTokens: number, options: OfflineProviderOptions): number {
  return Math.round(inputTokens * options.inputPricePerMTokUsd + outputTokens * options.outputPricePerMTokUsd)
}

export class OfflineProvider implements AgentProvider {
  readonly name = 'offline'
  readonly #options: OfflineProviderOptions

  constructor(options: OfflineProviderOptions) {
    for (const [key, value] of Object.entries(options)) {
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
        throw new RangeError(`offline provider: ${key} must be a finite number >= 0, got ${String(value)}`)
      }
    }
    this.#options = { ...options }
  }

  async run(request: AgentRunRequest, _effects: RunEffects, signal: AbortSignal): Promise<AgentRunResult> {
    await abortableDelay(this.#options.latencyMs, signal)
    if (signal.aborted) throw abortError(signal)
    const output = buildDeliverable(request)
    const inputTokens = estimateTokens(offlinePrompt(request))
    const outputTokens = estimateTokens(output)
    return {
      output,
      usage: { provider: this.name, model: OFFLINE_MODEL, inputTokens, outputTokens },
      costMicros: costMicrosOf(inputTokens, outputTokens, this.#options),
      learnedFacts: [],
    }
  }
}

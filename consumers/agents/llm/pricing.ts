import type { ModelPrice } from '../../../src/llm-config.js'

/** Micro-USD for tokens of one model: a price per million tokens in USD is exactly micro-USD per token. */
export class PriceTable {
  constructor(
    private readonly byModel: ReadonlyMap<string, ModelPrice>,
    private readonly fallback: ModelPrice,
  ) {}

  priceOf(model: string): ModelPrice {
    return this.byModel.get(model) ?? this.fallback
  }

  costMicros(model: string, inputTokens: number, outputTokens: number): number {
    const price = this.priceOf(model)
    return Math.round(inputTokens * price.input + outputTokens * price.output)
  }
}

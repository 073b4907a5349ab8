/** Money is held in integer micro-USD (1 USD = 1 000 000) so sums of small costs stay exact. */
export const MICROS_PER_USD = 1_000_000

export function usdToMicros(usd: number): number {
  return Math.round(usd * MICROS_PER_USD)
}

export function microsToUsd(micros: number): number {
  return micros / MICROS_PER_USD
}

/** `$1.50`, or six decimals for amounts below a cent's resolution. */
export function formatUsd(micros: number): string {
  return `$${microsToUsd(micros).toFixed(micros % 10_000 === 0 ? 2 : 6)}`
}

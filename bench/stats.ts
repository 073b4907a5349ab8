/** Small statistics for benchmark rounds: the median and the spread of interleaved rounds, percentiles. */

export interface Spread {
  readonly median: number
  readonly min: number
  readonly max: number
}

export function spread(values: readonly number[]): Spread {
  if (values.length === 0) return { median: Number.NaN, min: Number.NaN, max: Number.NaN }
  const sorted = [...values].sort((a, b) => a - b)
  return { median: sorted[Math.floor(sorted.length / 2)]!, min: sorted[0]!, max: sorted.at(-1)! }
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}

/** `1,234 (1,100–1,300)`: a median with the range of the rounds; `n/a` for what could not be measured (NaN). */
export function show(s: Spread, digits = 0): string {
  const f = (n: number) => (Number.isNaN(n) ? 'n/a' : n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }))
  return `${f(s.median)} (${f(s.min)}–${f(s.max)})`
}

/** Counts of `values` (ms) per bucket, as lines of a text histogram. */
export function histogram(values: readonly number[], bucketsMs: readonly number[]): string[] {
  const counts = bucketsMs.map(() => 0)
  let over = 0
  for (const v of values) {
    const i = bucketsMs.findIndex((limit) => v <= limit)
    if (i === -1) over++
    else counts[i]!++
  }
  const widest = Math.max(1, ...counts, over)
  const bar = (n: number) => '#'.repeat(Math.ceil((n / widest) * 40))
  const lines = bucketsMs.map((limit, i) => `  ≤ ${String(limit).padStart(5)} ms ${String(counts[i]).padStart(7)} ${bar(counts[i]!)}`)
  lines.push(`  > ${String(bucketsMs.at(-1)).padStart(5)} ms ${String(over).padStart(7)} ${bar(over)}`)
  return lines
}

/** "; did you mean --name?" when one known word is a plausible typo of what was typed, else "". */
export function didYouMean(typed: string, known: readonly string[]): string {
  const limit = Math.max(2, Math.floor(typed.length / 3))
  let best: { word: string; distance: number } | undefined
  for (const word of known) {
    const distance = editDistance(typed, word)
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { word, distance }
  }
  return best ? `; did you mean ${best.word}?` : ''
}

/** Levenshtein distance, counting a swap of two neighbours as one edit (the commonest typo). */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)))
  const at = (i: number, j: number) => rows[i]?.[j] ?? Number.POSITIVE_INFINITY
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let distance = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) distance = Math.min(distance, at(i - 2, j - 2) + 1)
      rows[i]![j] = distance
    }
  }
  return at(a.length, b.length)
}

/** A pattern for an empty string or a comma-separated list of `item` (a pattern without anchors). */
export function listOf(item: string): string {
  return `^\\s*(${item}(\\s*,\\s*${item})*)?\\s*$`
}

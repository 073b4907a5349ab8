import type { Projection } from './projection.js'

/** Projections by the stream they read, in their given order: a runner reads one stream for all of its projections. */
export function byStream(projections: readonly Projection[]): Map<string, Projection[]> {
  const groups = new Map<string, Projection[]>()
  for (const projection of projections) {
    const group = groups.get(projection.stream)
    if (group) group.push(projection)
    else groups.set(projection.stream, [projection])
  }
  return groups
}

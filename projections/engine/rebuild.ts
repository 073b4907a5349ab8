import type { Projection } from './projection.js'
import { ProjectionRunner, type RunnerDeps } from './runner.js'
import { byStream } from './streams.js'

export interface RebuildProgress {
  readonly projection: string
  readonly phase: 'replaying' | 'activated' | 'cleaned'
  readonly applied: number
  readonly last: number
}

/** Events per batch when replaying: a task's events are close together, so most fold into one insert. */
const REBUILD_BATCH = 2000

/**
 * Rebuilds each read model from sequence 1 into a new generation, then makes it the
 * active one. The old generation keeps serving reads until then, and is dropped only
 * once every process has had time to see the flip.
 */
export async function rebuildProjections(deps: RunnerDeps, projections: readonly Projection[], onProgress: (progress: RebuildProgress) => void): Promise<void> {
  const { readModels } = deps
  // One replay per stream, for all of its projections: the stream is read once. Streams are
  // replayed side by side: the store and the server work on one while this process decodes another.
  const flipped = (
    await Promise.all(
      [...byStream(projections).values()].map(async (members) => {
        const generations = new Map<string, number>()
        for (const projection of members) generations.set(projection.name, await readModels.openGeneration(projection))
        const runner = new ProjectionRunner(deps, members, {
          generations,
          untilCaughtUp: true,
          batchSize: REBUILD_BATCH,
          onProgress: (projection, applied, last) => onProgress({ projection, phase: 'replaying', applied, last }),
        })
        await runner.run()
        return Promise.all(
          members.map(async (projection) => {
            const generation = generations.get(projection.name)!
            const applied = await readModels.checkpoint(projection, generation)
            const previous = await readModels.activate(projection, generation)
            onProgress({ projection: projection.name, phase: 'activated', applied, last: applied })
            return { projection, generation: previous, replaced: previous !== generation }
          }),
        )
      }),
    )
  ).flat()
  const replaced = flipped.filter((f) => f.replaced)
  if (replaced.length === 0) return
  await new Promise((r) => setTimeout(r, readModels.staleAfterMs))
  for (const { projection, generation } of replaced) {
    await readModels.dropGeneration(projection, generation)
    const applied = await readModels.checkpoint(projection, readModels.generationOf(projection))
    onProgress({ projection: projection.name, phase: 'cleaned', applied, last: applied })
  }
}

import type { Projection } from './projection.js'
import { ProjectionRunner, type RunnerDeps } from './runner.js'

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
export async function rebuildProjections(
  deps: RunnerDeps,
  projections: readonly Projection[],
  onProgress: (progress: RebuildProgress) => void,
): Promise<void> {
  const { readModels } = deps
  // The replays read different streams or the same one side by side: the store and the
  // server work on one while this process decodes another.
  const flipped = await Promise.all(projections.map(async (projection) => {
    const generation = await readModels.openGeneration(projection)
    const runner = new ProjectionRunner(deps, projection, {
      generation,
      untilCaughtUp: true,
      batchSize: REBUILD_BATCH,
      onProgress: (applied, last) => onProgress({ projection: projection.name, phase: 'replaying', applied, last }),
    })
    await runner.run()
    const applied = await readModels.checkpoint(projection, generation)
    const previous = await readModels.activate(projection, generation)
    onProgress({ projection: projection.name, phase: 'activated', applied, last: applied })
    return { projection, generation: previous, replaced: previous !== generation }
  }))
  const replaced = flipped.filter((f) => f.replaced)
  if (replaced.length === 0) return
  await new Promise((r) => setTimeout(r, readModels.staleAfterMs))
  for (const { projection, generation } of replaced) {
    await readModels.dropGeneration(projection, generation)
    const applied = await readModels.checkpoint(projection, readModels.generationOf(projection))
    onProgress({ projection: projection.name, phase: 'cleaned', applied, last: applied })
  }
}

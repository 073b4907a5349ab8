import { ALL_PROJECTIONS, ProjectionRunner, ReadModels } from '../../projections/index.js'
import type { AppContext } from '../../src/app-context.js'
import { byStream } from '../../projections/engine/streams.js'

export type Snapshot = Record<string, unknown[]>

/** Every document of every read model's active generation, in `_id` order. */
export async function snapshot(readModels: ReadModels): Promise<Snapshot> {
  await readModels.refresh()
  const result: Snapshot = {}
  for (const projection of ALL_PROJECTIONS) {
    result[projection.name] = await readModels.collection(projection).find({}).sort({ _id: 1 }).toArray()
  }
  return result
}

/** Read models in another database of the same server, filled by one clean pass. */
export async function cleanPass(infra: AppContext, database: string): Promise<ReadModels> {
  const readModels = await readModelsIn(infra, database)
  await catchUp(infra, readModels)
  return readModels
}

export async function readModelsIn(infra: AppContext, database: string): Promise<ReadModels> {
  const readModels = new ReadModels(infra.mongo.db(database), ALL_PROJECTIONS)
  await readModels.init()
  return readModels
}

/** Runs every projection until it has applied everything in its stream. */
export async function catchUp(infra: AppContext, readModels: ReadModels, batchSize?: number): Promise<void> {
  const deps = { js: infra.js, jsm: infra.jsm, link: infra.link, readModels, log: infra.log }
  // One runner per stream for its projections, as the projector and rebuilds run them.
  await Promise.all([...byStream(ALL_PROJECTIONS).values()].map((projections) => new ProjectionRunner(deps, projections, { untilCaughtUp: true, ...(batchSize ? { batchSize } : {}) }).run()))
}

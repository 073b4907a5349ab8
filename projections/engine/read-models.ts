import type { Collection, Db } from 'mongodb'
import { isDuplicateKey } from '../../src/infra/mongo/errors.js'
import { ALL_PARTITIONS } from './partitions.js'
import type { Projection, Stored } from './projection.js'

const GENERATIONS = 'projection_generations'
const CHECKPOINTS = 'projection_checkpoints'

interface GenerationDoc { _id: string; active: number; latest: number }
/**
 * Where a projection's generation is, per partition: `partitions.<n>` is the stream sequence
 * up to which partition n is applied. `seq` is what versions without partitions wrote (all
 * partitions at that sequence).
 */
interface CheckpointDoc { _id: string; seq?: number; partitions?: Record<string, number>; updatedAt: Date }

/**
 * Where each projection's documents live. A rebuild writes a new generation of a read
 * model beside the live one and then flips `active`, so readers are never without data
 * (FerretDB cannot rename over an existing collection, and a pointer is cheaper anyway).
 * Every process refreshes the active generations every `refreshMs`.
 */
export class ReadModels {
  private active = new Map<string, number>()
  private timer: NodeJS.Timeout | undefined

  constructor(
    readonly db: Db,
    readonly projections: readonly Projection[],
    private readonly refreshMs = 1000,
  ) {}

  private get generations(): Collection<GenerationDoc> {
    return this.db.collection<GenerationDoc>(GENERATIONS)
  }

  private get checkpoints(): Collection<CheckpointDoc> {
    return this.db.collection<CheckpointDoc>(CHECKPOINTS)
  }

  /** Creates generation 1 and its indexes for every new projection, then loads the pointers. */
  async init(): Promise<void> {
    for (const projection of this.projections) {
      // Processes starting together on an empty database race to insert it: losing is fine.
      await this.generations.updateOne({ _id: projection.name }, { $setOnInsert: { active: 1, latest: 1 } }, { upsert: true })
        .catch((err: unknown) => { if (!isDuplicateKey(err)) throw err })
    }
    await this.refresh()
    for (const projection of this.projections) await this.ensureIndexes(projection, this.generationOf(projection))
    this.timer = setInterval(() => void this.refresh().catch(() => undefined), this.refreshMs)
    this.timer.unref()
  }

  async refresh(): Promise<void> {
    const docs = await this.generations.find({}).toArray()
    this.active = new Map(docs.map((d) => [d._id, d.active]))
  }

  close(): void {
    clearInterval(this.timer)
  }

  generationOf(projection: Projection): number {
    return this.active.get(projection.name) ?? 1
  }

  collection<Doc extends { _id: string }>(projection: Projection, generation = this.generationOf(projection)): Collection<Stored<Doc>> {
    return this.db.collection<Stored<Doc>>(collectionName(projection, generation))
  }

  /** One index per call: FerretDB 1.24 drops the connection when a multi-index call finds them existing. */
  async ensureIndexes(projection: Projection, generation: number): Promise<void> {
    const collection = this.collection(projection, generation)
    for (const { key, ...options } of projection.indexes) await collection.createIndex(key, options)
  }

  /** The stream sequence up to which every partition is applied. */
  async checkpoint(projection: Projection, generation: number): Promise<number> {
    return Math.min(...(await this.partitionCheckpoints(projection, generation)))
  }

  /** The stream sequence up to which each partition is applied, by partition number. */
  async partitionCheckpoints(projection: Projection, generation: number): Promise<number[]> {
    const doc = await this.checkpoints.findOne({ _id: checkpointId(projection, generation) })
    return ALL_PARTITIONS.map((n) => Math.max(doc?.partitions?.[n] ?? 0, doc?.seq ?? 0))
  }

  /** Monotonic: a slower concurrent projector can never move a checkpoint back. */
  async advance(projection: Projection, generation: number, seq: number, partitions: readonly number[]): Promise<void> {
    const max = Object.fromEntries(partitions.map((n) => [`partitions.${n}`, seq]))
    const write = () => this.checkpoints.updateOne({ _id: checkpointId(projection, generation) }, { $max: max, $set: { updatedAt: new Date() } }, { upsert: true })
    // Two projectors creating a generation's checkpoint at once: one insert loses, its retry updates.
    await write().catch((err: unknown) => (isDuplicateKey(err) ? write() : Promise.reject(err)))
  }

  /** Reserves a fresh generation number for a rebuild and empties its collection. */
  async openGeneration(projection: Projection): Promise<number> {
    const doc = await this.generations.findOneAndUpdate({ _id: projection.name }, { $inc: { latest: 1 } }, { returnDocument: 'after', upsert: true })
    const generation = doc?.latest ?? 2
    await this.collection(projection, generation).drop().catch(() => false)
    await this.checkpoints.deleteOne({ _id: checkpointId(projection, generation) })
    await this.ensureIndexes(projection, generation)
    return generation
  }

  /** Makes `generation` the one readers use; returns the one it replaced. */
  async activate(projection: Projection, generation: number): Promise<number> {
    const before = await this.generations.findOneAndUpdate({ _id: projection.name }, { $set: { active: generation } }, { returnDocument: 'before' })
    this.active.set(projection.name, generation)
    return before?.active ?? 1
  }

  async dropGeneration(projection: Projection, generation: number): Promise<void> {
    await this.collection(projection, generation).drop().catch(() => false)
    await this.checkpoints.deleteOne({ _id: checkpointId(projection, generation) })
  }

  /** How long readers may still use a generation after it was replaced. */
  get staleAfterMs(): number {
    return this.refreshMs * 3
  }
}

export function collectionName(projection: Projection, generation: number): string {
  return `${projection.name}_g${generation}`
}

function checkpointId(projection: Projection, generation: number): string {
  return checkpointKey(projection.name, generation)
}

/** A projection's generation as checkpoints and progress messages name it. */
export function checkpointKey(name: string, generation: number): string {
  return `${name}@${generation}`
}

import type { Collection, Db } from 'mongodb'
import { isDuplicateKey, upsertRacing } from '../../src/infra/mongo/errors.js'
import { chunks, MAX_UPDATES_PER_BULK } from './bulk-limits.js'
import { ALL_PARTITIONS } from './partitions.js'
import type { Projection, Stored } from './projection.js'

const GENERATIONS = 'projection_generations'
const CHECKPOINTS = 'projection_checkpoints'

interface GenerationDoc {
  _id: string
  active: number
  latest: number
  stopped?: Record<string, Stopped>
}

/** Where one projection's generation moves the checkpoints of some of its partitions to. */
export interface CheckpointMove {
  readonly projection: Projection
  readonly generation: number
  readonly partitions: readonly number[]
}

/** Where a projection stopped on an event it cannot apply (runner.ts), by the event's partition. */
export interface Stopped {
  readonly generation: number
  readonly partition: number
  readonly seq: number
  readonly subject: string
  readonly type: string
  readonly error: string
  readonly at: Date
}
/**
 * Where one partition of a projection's generation is applied up to (`_id`
 * `<name>@<generation>#<partition>`). A partition has one writer at a time (leases), and its own
 * document, so writers of different partitions never update the same document: FerretDB's
 * updates read and then replace, and concurrent `$max` updates of one shared document lost
 * writes there, moving other partitions back. Versions before this wrote one document per
 * generation (`<name>@<generation>`, with `partitions.<n>`, or `seq` for all of them); it is
 * still read, and the larger value wins.
 */
interface CheckpointDoc {
  _id: string
  seq?: number
  partitions?: Record<string, number>
  updatedAt: Date
}

/**
 * Where each projection's documents live. A rebuild writes a new generation of a read
 * model beside the live one and then flips `active`, so readers are never without data
 * (FerretDB cannot rename over an existing collection, and a pointer is cheaper anyway).
 * Every process refreshes the active generations every `refreshMs`.
 */
export class ReadModels {
  private active = new Map<string, number>()
  private stops = new Map<string, Stopped[]>()
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
      await this.generations.updateOne({ _id: projection.name }, { $setOnInsert: { active: 1, latest: 1 } }, { upsert: true }).catch((err: unknown) => {
        if (!isDuplicateKey(err)) throw err
      })
    }
    await this.refresh()
    for (const projection of this.projections) await this.ensureIndexes(projection, this.generationOf(projection))
    this.timer = setInterval(() => void this.refresh().catch(() => undefined), this.refreshMs)
    this.timer.unref()
  }

  async refresh(): Promise<void> {
    const docs = await this.generations.find({}).toArray()
    this.active = new Map(docs.map((d) => [d._id, d.active]))
    this.stops = new Map(docs.map((d) => [d._id, Object.values(d.stopped ?? {}).filter((s) => s.generation === d.active)]))
  }

  /**
   * The partitions of the active generation where a projection stopped, as of the last
   * refresh: kept with the generation pointer, which every process reads every `refreshMs`
   * anyway, so /readyz and the CLI learn of a stop without a query of their own.
   */
  stoppedOf(projection: Projection): readonly Stopped[] {
    return this.stops.get(projection.name) ?? []
  }

  async markStopped(projection: Projection, stopped: Stopped): Promise<void> {
    await this.generations.updateOne({ _id: projection.name }, { $set: { [`stopped.${stopped.partition}`]: stopped } })
    if (stopped.generation === this.generationOf(projection)) this.stops.set(projection.name, [...this.stoppedOf(projection).filter((s) => s.partition !== stopped.partition), stopped])
  }

  /** Forgets a stop once its partition is applied past it (the projection was fixed). */
  async clearStopped(projection: Projection, stopped: Stopped): Promise<void> {
    const key = `stopped.${stopped.partition}`
    await this.generations.updateOne({ _id: projection.name, [`${key}.seq`]: stopped.seq, [`${key}.generation`]: stopped.generation }, { $unset: { [key]: '' } })
    this.stops.set(
      projection.name,
      this.stoppedOf(projection).filter((s) => s !== stopped),
    )
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
    const docs = await this.checkpoints.find({ _id: { $in: checkpointIds(projection, generation) } }).toArray()
    const legacy = docs.find((d) => d._id === checkpointId(projection, generation))
    const own = new Map(docs.map((d) => [d._id, d.seq ?? 0]))
    return ALL_PARTITIONS.map((n) => Math.max(own.get(partitionCheckpointId(projection, generation, n)) ?? 0, legacy?.partitions?.[n] ?? 0, legacy?.seq ?? 0))
  }

  /** Monotonic: a slower concurrent projector can never move a checkpoint back. */
  advance(projection: Projection, generation: number, seq: number, partitions: readonly number[]): Promise<void> {
    return this.advanceAll([{ projection, generation, partitions }], seq)
  }

  /**
   * Moves the checkpoints of several projections' partitions to `seq`, MAX_UPDATES_PER_BULK to a
   * bulk write: a batch moves each projection of its stream, and one write per checkpoint was
   * most of what the projector asked of FerretDB under a backlog (ADR 0065). A chunk that fails
   * leaves the later ones unsent: those checkpoints stay behind, and their events are applied
   * again (a no-op) when the runner resumes from them.
   */
  async advanceAll(moves: readonly CheckpointMove[], seq: number): Promise<void> {
    const updatedAt = new Date()
    const ops = moves.flatMap(({ projection, generation, partitions }) =>
      partitions.map((n) => ({ updateOne: { filter: { _id: partitionCheckpointId(projection, generation, n) }, update: { $max: { seq }, $set: { updatedAt } }, upsert: true } })),
    )
    // Two projectors creating a partition's checkpoints at once: inserts lose; the chunk is sent again (`$max` makes that harmless) until it finds them.
    for (const chunk of chunks(ops, MAX_UPDATES_PER_BULK)) await upsertRacing(() => this.checkpoints.bulkWrite(chunk, { ordered: false }), chunk.length)
  }

  /** Reserves a fresh generation number for a rebuild and empties its collection. */
  async openGeneration(projection: Projection): Promise<number> {
    const doc = await this.generations.findOneAndUpdate({ _id: projection.name }, { $inc: { latest: 1 } }, { returnDocument: 'after', upsert: true })
    const generation = doc?.latest ?? 2
    await this.collection(projection, generation)
      .drop()
      .catch(() => false)
    await this.checkpoints.deleteMany({ _id: { $in: checkpointIds(projection, generation) } })
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
    await this.collection(projection, generation)
      .drop()
      .catch(() => false)
    await this.checkpoints.deleteMany({ _id: { $in: checkpointIds(projection, generation) } })
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

function partitionCheckpointId(projection: Projection, generation: number, partition: number): string {
  return `${checkpointId(projection, generation)}#${partition}`
}

/** Every checkpoint document of a generation: one per partition, and the one of older versions. */
function checkpointIds(projection: Projection, generation: number): string[] {
  return [checkpointId(projection, generation), ...ALL_PARTITIONS.map((n) => partitionCheckpointId(projection, generation, n))]
}

/** A projection's generation as checkpoints and progress messages name it. */
export function checkpointKey(name: string, generation: number): string {
  return `${name}@${generation}`
}

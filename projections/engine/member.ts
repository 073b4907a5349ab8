import type { JsMsg } from '@nats-io/jetstream'
import type { RecordedEvent } from '../../src/domain/message.js'
import { eventSubjectParts } from '../../src/infra/nats/subjects.js'
import { BatchApplier } from './apply.js'
import { Halts } from './halts.js'
import { partitionOf } from './partitions.js'
import { handles, type Projection } from './projection.js'
import type { ReadModels } from './read-models.js'
import type { Logger } from 'pino'

/** While a backlog is applied, how often the checkpoints of partitions a batch did not write to still move. */
export const IDLE_CHECKPOINT_MS = 500

/** Where a message belongs, read once for all of a runner's members: its sequence, and its account's partition and its type from its subject (`mats.<category>.<account>.<aggregate>.<type>`). */
export interface Route {
  readonly seq: number
  readonly partition: number
  readonly type: string
}

export function routeOf(msg: JsMsg): Route {
  const { accountId, type } = eventSubjectParts(msg.subject)
  return { seq: msg.seq, partition: partitionOf(accountId), type }
}

/**
 * One projection a runner writes, for one pass over its stream: the generation it writes
 * to, where each partition it holds was applied up to when the pass began, and how its
 * documents are written. A runner reads its stream once for all its members.
 */
export class Member {
  readonly applier: BatchApplier
  readonly halts: Halts
  private allCheckpointsWrittenAt = 0
  /** The checkpoint last written, by partition. */
  private readonly written: Map<number, number>
  /** Writes the idle partitions' checkpoints once the batches stop (see checkpointsToWrite). */
  idleCheckpoints: NodeJS.Timeout | undefined

  constructor(
    readonly projection: Projection,
    readonly generation: number,
    /** Applied sequence by partition, for the partitions this runner holds. */
    readonly checkpoints: ReadonlyMap<number, number>,
    readModels: ReadModels,
    log: Logger,
    options: { readonly live: boolean },
  ) {
    this.written = new Map(checkpoints)
    const sharedWithCommands = projection.inline && options.live
    this.applier = new BatchApplier(readModels.collection(projection, generation), projection, { sharedWithCommands })
    this.halts = new Halts(readModels, log, projection)
  }

  static async open(projection: Projection, generation: number, partitions: readonly number[], readModels: ReadModels, log: Logger, options: { readonly live: boolean }): Promise<Member> {
    const all = await readModels.partitionCheckpoints(projection, generation)
    return new Member(projection, generation, new Map(partitions.map((n) => [n, all[n] ?? 0])), readModels, log, options)
  }

  /** Where this member's pass must start from: after the least applied of its partitions. */
  get from(): number {
    return Math.min(...this.checkpoints.values())
  }

  /**
   * An event this member writes: one its projection handles, of a partition held, past that
   * partition's checkpoint. Told from the subject (routeOf), so that the events of other
   * partitions are never decoded.
   */
  owns(route: Route): boolean {
    const applied = this.checkpoints.get(route.partition)
    return applied !== undefined && route.seq > applied && handles(this.projection, route.type)
  }

  /**
   * Each partition has a checkpoint document of its own (read-models.ts). A batch moves the
   * checkpoints of the partitions it wrote to; the other partitions held move every
   * IDLE_CHECKPOINT_MS while batches come (so that progress shows) and once more that long after
   * the last batch (`behind`, scheduled by the runner), so that an idle partition's checkpoint
   * reaches the stream's head too without a write per partition per batch. Progress
   * announcements carry all of them after every batch.
   */
  checkpointsToWrite(events: readonly RecordedEvent[], last: JsMsg): readonly number[] {
    const now = Date.now()
    if (now - this.allCheckpointsWrittenAt >= IDLE_CHECKPOINT_MS) {
      this.allCheckpointsWrittenAt = now
      return this.behind(last.seq)
    }
    return [...new Set(events.map((event) => partitionOf(event.accountId)))]
  }

  /** Remembers what was written. */
  wrote(partitions: readonly number[], seq: number): void {
    for (const partition of partitions) this.written.set(partition, Math.max(this.written.get(partition) ?? 0, seq))
  }

  /** The partitions held whose stored checkpoint is before `seq`. */
  behind(seq: number): number[] {
    return [...this.checkpoints.keys()].filter((partition) => (this.written.get(partition) ?? 0) < seq)
  }
}

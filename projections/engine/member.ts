import type { JsMsg } from '@nats-io/jetstream'
import type { RecordedEvent } from '../../src/domain/message.js'
import { BatchApplier } from './apply.js'
import { Halts } from './halts.js'
import { partitionOf } from './partitions.js'
import { handles, type Projection } from './projection.js'
import type { ReadModels } from './read-models.js'
import type { Logger } from 'pino'

/** While a backlog is applied, how often the checkpoints of partitions a batch did not write to still move. */
const IDLE_CHECKPOINT_MS = 500

/**
 * One projection a runner writes, for one pass over its stream: the generation it writes
 * to, where each partition it holds was applied up to when the pass began, and how its
 * documents are written. A runner reads its stream once for all its members.
 */
export class Member {
  readonly applier: BatchApplier
  readonly halts: Halts
  private allCheckpointsWrittenAt = 0

  constructor(
    readonly projection: Projection,
    readonly generation: number,
    /** Applied sequence by partition, for the partitions this runner holds. */
    readonly checkpoints: ReadonlyMap<number, number>,
    readModels: ReadModels,
    log: Logger,
    options: { readonly live: boolean },
  ) {
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
   * partition's checkpoint. Told from the subject (`mats.<category>.<account>.<aggregate>.<type>`),
   * so that the events of other partitions are never decoded.
   */
  owns(msg: JsMsg): boolean {
    const [, , accountId = '', , type = ''] = msg.subject.split('.')
    const applied = this.checkpoints.get(partitionOf(accountId))
    return applied !== undefined && msg.seq > applied && handles(this.projection, type)
  }

  /**
   * Each partition has a checkpoint document of its own (read-models.ts). While more events
   * are pending, the partitions the batch wrote to move theirs, and the others every
   * IDLE_CHECKPOINT_MS (so that progress shows); once caught up, every partition held moves to
   * the batch's end, so that an idle partition's checkpoint reaches the stream's head too.
   * Progress announcements carry all of them after every batch.
   */
  checkpointsToWrite(events: readonly RecordedEvent[], last: JsMsg): readonly number[] {
    const now = Date.now()
    if (last.info.pending === 0 || now - this.allCheckpointsWrittenAt >= IDLE_CHECKPOINT_MS) {
      this.allCheckpointsWrittenAt = now
      return [...this.checkpoints.keys()]
    }
    return [...new Set(events.map((event) => partitionOf(event.accountId)))]
  }
}

import { DeliverPolicy, type ConsumerMessages, type JetStreamClient, type JetStreamManager, type JsMsg } from '@nats-io/jetstream'
import type { NatsConnection } from '@nats-io/transport-node'
import type { Logger } from 'pino'
import type { RecordedEvent } from '../../src/domain/message.js'
import { PoisonMessages } from '../../src/infra/mongo/poison-messages.js'
import { tryDecodeEvent, UndecodableMessageError } from '../../src/infra/nats/decode.js'
import { closeOrdered } from '../../src/infra/nats/ordered-consumers.js'
import { BatchApplier } from './apply.js'
import { batchesOf } from './batches.js'
import { Halts } from './halts.js'
import { ALL_PARTITIONS, partitionOf } from './partitions.js'
import { publishProgress } from './progress.js'
import { EventNotAppliedError, handles, type Projection } from './projection.js'
import type { ReadModels } from './read-models.js'

export interface RunnerDeps {
  /** When given, each applied batch is announced (see progress.ts). */
  readonly nc?: NatsConnection
  readonly js: JetStreamClient
  readonly jsm: JetStreamManager
  readonly readModels: ReadModels
  readonly log: Logger
}

export interface RunnerOptions {
  readonly batchSize?: number
  /** Write to this generation instead of following the active one (rebuilds). */
  readonly generation?: number
  /** Return once every event that existed at start has been applied (rebuilds). */
  readonly untilCaughtUp?: boolean
  /** The partitions this runner writes (default: all); see partitions.ts and leases.ts. */
  readonly partitions?: readonly number[]
  /** How long a live batch waits for more events once the stream has none pending (default LINGER_MS). */
  readonly lingerMs?: number
  readonly onProgress?: (applied: number, last: number) => void
  /** Called once a batch is written, with its events (the benchmark measures lag with it). */
  readonly onApplied?: (events: readonly RecordedEvent[]) => void
}

const RETRY_DELAY_MS = 1000
/** See batches.ts: folds a task's events, which follow each other within milliseconds, into one write. */
const LINGER_MS = 50
const GENERATION_CHECK_MS = 250
const IDLE_CHECKPOINT_MS = 500

/**
 * Applies one projection's events, for its partitions, in stream order from their MongoDB
 * checkpoints, in batches: a batch ends when it is full or the consumer has nothing more
 * pending, so a backlog is applied in large writes and a live event is applied at once. The
 * checkpoints move only after the batch's writes, so a crash re-applies at most one batch,
 * which the `_seq` guards turn into no-ops.
 */
export class ProjectionRunner {
  private messages: ConsumerMessages | undefined
  private stopped = false
  private readonly batchSize: number
  private readonly partitions: readonly number[]
  private readonly poison: PoisonMessages
  private readonly halts: Halts
  /** The generation being written: where a stop is recorded. */
  private generation = 0
  private allCheckpointsWrittenAt = 0

  constructor(
    private readonly deps: RunnerDeps,
    readonly projection: Projection,
    private readonly options: RunnerOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 100
    this.partitions = options.partitions ?? ALL_PARTITIONS
    this.poison = new PoisonMessages(deps.readModels.db, deps.log)
    this.halts = new Halts(deps.readModels, deps.log, projection)
  }

  /**
   * Until stopped (or caught up, for a rebuild). A failure to reach NATS or MongoDB is
   * retried from the checkpoint; an event the projection cannot apply stops a live runner
   * (halts.ts) and fails a rebuild, since retrying it would fail the same way forever.
   */
  async run(): Promise<void> {
    while (!this.stopped) {
      try {
        const finished = await this.runGeneration()
        if (finished) return
      } catch (err) {
        if (this.stopped) return
        if (err instanceof EventNotAppliedError && !this.live) throw err
        if (err instanceof EventNotAppliedError && (await this.halts.record(this.generation, err))) {
          await this.halts.waitWhileActive(this.generation, () => this.stopped)
          continue
        }
        this.deps.log.error({ err, projection: this.projection.name }, 'projection failed; resuming from its checkpoint')
        await new Promise((r) => setTimeout(r, RETRY_DELAY_MS))
      }
    }
  }

  /** Following the active generation for good, not replaying into one (rebuilds, tests' catch-ups). */
  private get live(): boolean {
    return this.options.generation === undefined && !this.options.untilCaughtUp
  }

  stop(): void {
    this.stopped = true
    void this.messages?.close()
  }

  /** True when done for good; false to restart (the active generation changed). */
  private async runGeneration(): Promise<boolean> {
    const { js, readModels } = this.deps
    const generation = this.options.generation ?? readModels.generationOf(this.projection)
    this.generation = generation
    const collection = readModels.collection(this.projection, generation)
    const all = await readModels.partitionCheckpoints(this.projection, generation)
    const checkpoints = new Map(this.partitions.map((n) => [n, all[n] ?? 0]))
    const from = Math.min(...checkpoints.values())
    const last = await this.lastSequence()
    if (this.options.untilCaughtUp && from >= last) return true

    // Unfiltered on purpose: the checkpoint is a position in the stream, so it must pass
    // over the events this projection ignores too, or "caught up" could never be seen.
    const consumer = await js.consumers.get(this.projection.stream, {
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: from + 1,
    })
    this.messages = await consumer.consume({ max_messages: this.batchSize })
    const watch = this.watchGeneration(generation)
    try {
      if (this.stopped) return true
      return await this.applyAll(collection, generation, checkpoints, last)
    } finally {
      clearInterval(watch)
      await closeOrdered(consumer, this.messages)
    }
  }

  /**
   * A rebuild may flip the active generation while this runner idles on the old one:
   * it then stops consuming and starts over on the new one, at once, not at its next event.
   */
  private watchGeneration(generation: number): NodeJS.Timeout | undefined {
    if (this.options.generation !== undefined) return undefined
    const timer = setInterval(() => {
      if (this.deps.readModels.generationOf(this.projection) !== generation) void this.messages?.close()
    }, GENERATION_CHECK_MS)
    timer.unref()
    return timer
  }

  /**
   * An event this runner writes: one its projection handles, of one of its partitions, past
   * that partition's checkpoint. Told from the subject (`mats.<category>.<account>.<aggregate>.<type>`),
   * so that the events of other partitions are never decoded.
   */
  private owns(subject: string, seq: number, checkpoints: ReadonlyMap<number, number>): boolean {
    const [, , accountId = '', , type = ''] = subject.split('.')
    const applied = checkpoints.get(partitionOf(accountId))
    return applied !== undefined && seq > applied && handles(this.projection, type)
  }

  private async applyAll(collection: ReturnType<ReadModels['collection']>, generation: number, checkpoints: ReadonlyMap<number, number>, last: number): Promise<boolean> {
    if (!this.messages) return true
    const sharedWithCommands = this.projection.inline && this.options.generation === undefined
    const applier = new BatchApplier(collection, this.projection, { sharedWithCommands })
    const lingerMs = this.options.untilCaughtUp ? 0 : (this.options.lingerMs ?? LINGER_MS)
    for await (const messages of batchesOf(this.messages, this.batchSize, lingerMs)) {
      // On a failure, close before leaving the loop: leaving waits for the consumer's pending read, which only a close (or the next message) ends.
      const goOn = await this.applyBatch(applier, generation, checkpoints, last, messages).catch((err: unknown) => {
        void this.messages?.close()
        throw err
      })
      if (!goOn) break
    }
    await this.messages.close()
    return this.stopped || this.options.untilCaughtUp === true
  }

  /** Writes one batch and moves the checkpoints past it; false when the runner should stop reading. */
  private async applyBatch(applier: BatchApplier, generation: number, checkpoints: ReadonlyMap<number, number>, last: number, messages: readonly JsMsg[]): Promise<boolean> {
    const { readModels } = this.deps
    const msg = messages.at(-1)!
    const batch = await this.decodeOwned(messages, checkpoints)
    await applier.apply(batch)
    await readModels.advance(this.projection, generation, msg.seq, this.checkpointsToWrite(batch, msg))
    await this.halts.clearPassed(generation, this.partitions, msg.seq)
    if (this.deps.nc) publishProgress(this.deps.nc, this.projection, generation, msg.seq, this.partitions)
    this.options.onApplied?.(batch)
    this.options.onProgress?.(msg.seq, Math.max(last, msg.seq + msg.info.pending))
    if (this.options.untilCaughtUp && msg.info.pending === 0) return false
    if (this.stopped) return false
    return this.options.generation !== undefined || readModels.generationOf(this.projection) === generation
  }

  /**
   * Each partition has a checkpoint document of its own (read-models.ts). While more events
   * are pending, the partitions the batch wrote to move theirs, and the others every
   * IDLE_CHECKPOINT_MS (so that progress shows); once caught up, every partition held moves to
   * the batch's end, so that an idle partition's checkpoint reaches the stream's head too.
   * Progress announcements carry all of them after every batch.
   */
  private checkpointsToWrite(batch: readonly RecordedEvent[], last: JsMsg): readonly number[] {
    const now = Date.now()
    if (last.info.pending === 0 || now - this.allCheckpointsWrittenAt >= IDLE_CHECKPOINT_MS) {
      this.allCheckpointsWrittenAt = now
      return this.partitions
    }
    return [...new Set(batch.map((event) => partitionOf(event.accountId)))]
  }

  /** The events this runner writes; a message that is not an event is recorded and skipped (the checkpoint passes it). */
  private async decodeOwned(messages: readonly JsMsg[], checkpoints: ReadonlyMap<number, number>): Promise<RecordedEvent[]> {
    const events: RecordedEvent[] = []
    for (const msg of messages) {
      if (!this.owns(msg.subject, msg.seq, checkpoints)) continue
      const decoded = tryDecodeEvent(msg)
      if (!(decoded instanceof UndecodableMessageError)) events.push(decoded)
      else await this.poison.record({ stream: this.projection.stream, seq: msg.seq, subject: msg.subject, reason: decoded.reason }, `projection:${this.projection.name}`)
    }
    return events
  }

  private async lastSequence(): Promise<number> {
    const info = await this.deps.jsm.streams.info(this.projection.stream)
    return info.state.last_seq
  }
}

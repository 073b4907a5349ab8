import type { Collection, Db } from 'mongodb'
import type { Logger } from 'pino'
import { upsertRacing } from './errors.js'

/** A message of an event stream that is not an event (see src/infra/nats/decode.ts). */
export interface PoisonMessage {
  readonly stream: string
  readonly seq: number
  readonly subject: string
  readonly reason: string
}

export interface PoisonDoc extends PoisonMessage {
  readonly _id: string
  readonly firstSeenAt: Date
  /** The consumers that met it and moved on: `worker`, `projection:<name>`, `live-view:<name>`. */
  readonly seenBy: string[]
}

const COLLECTION = 'poison_messages'

/**
 * The poison messages every consumer met, in the read-model database beside the
 * checkpoints: one document per message (`<stream>#<seq>`), so the count is of messages,
 * not of sightings (a replay meets them again), survives restarts, and is the same for
 * every process and for `mats projections status`.
 */
export class PoisonMessages {
  constructor(
    private readonly db: Db,
    private readonly log: Logger,
  ) {}

  private get collection(): Collection<PoisonDoc> {
    return this.db.collection<PoisonDoc>(COLLECTION)
  }

  /**
   * Logs it and records it. Never throws: the consumer moves past the message either way,
   * and if MongoDB is away the log line is what remains.
   */
  async record(poison: PoisonMessage, seenBy: string): Promise<void> {
    const { stream, seq, subject, reason } = poison
    this.log.error({ stream, seq, subject, reason, consumer: seenBy }, 'poison message: not an event, skipped for good')
    const write = () => this.collection.updateOne(
      { _id: `${stream}#${seq}` },
      { $setOnInsert: { stream, seq, subject, reason, firstSeenAt: new Date() }, $addToSet: { seenBy } },
      { upsert: true },
    )
    await upsertRacing(write).catch((err: unknown) => this.log.warn({ err, stream, seq }, 'could not record the poison message'))
  }

  count(): Promise<number> {
    return this.collection.countDocuments()
  }

  latest(limit: number): Promise<PoisonDoc[]> {
    return this.collection.find({}).sort({ firstSeenAt: -1 }).limit(limit).toArray()
  }
}

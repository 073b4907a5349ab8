import type { Collection, Db } from 'mongodb'
import type { Logger } from 'pino'
import { isDuplicateKey } from './errors.js'

/** A message a consumer gave up on: not an event (src/infra/nats/decode.ts), or one it could not handle (failed-messages.ts). */
export interface PoisonMessage {
  readonly stream: string
  readonly seq: number
  readonly subject: string
  readonly reason: string
}

/** A poison message with who met it. */
export interface PoisonReport extends PoisonMessage {
  readonly firstSeenAt: Date
  /** The consumers that met it and moved on: `worker`, `projection:<name>`, `live-view:<name>`, `webhooks:fan-out`, … */
  readonly seenBy: string[]
}

/** One consumer meeting one poison message. */
interface Sighting extends PoisonMessage {
  readonly _id: string
  /** `<stream>#<seq>`: what the count is of. */
  readonly message: string
  readonly consumer: string
  readonly seenAt: Date
}

const COLLECTION = 'poison_messages'
/** Poison is rare; a status report reads at most this many sightings. */
const SIGHTINGS_READ = 5_000

/**
 * The poison messages every consumer met, in the read-model database beside the
 * checkpoints, so that the count survives restarts and is the same for every process and for
 * `mats projections status`.
 *
 * Each sighting is a document of its own (`<stream>#<seq>#<consumer>`), written by one
 * insert: consumers meet a message at the same moment, and an update that adds to one shared
 * document loses writes on FerretDB, whose updates read and then replace (measured: 6 of 50
 * rounds of three concurrent `$addToSet` upserts kept two names of three). A replay meets a
 * message again and inserts nothing new; the count is of distinct messages.
 */
export class PoisonMessages {
  constructor(
    private readonly db: Db,
    private readonly log: Logger,
  ) {}

  private get collection(): Collection<Sighting> {
    return this.db.collection<Sighting>(COLLECTION)
  }

  /**
   * Logs it and records it. Never throws: the consumer moves past the message either way,
   * and if MongoDB is away the log line is what remains.
   */
  async record(poison: PoisonMessage, consumer: string): Promise<void> {
    const { stream, seq, subject, reason } = poison
    this.log.error({ stream, seq, subject, reason, consumer }, 'poison message: skipped for good')
    const message = `${stream}#${seq}`
    const sighting: Sighting = { _id: `${message}#${consumer}`, message, stream, seq, subject, reason, consumer, seenAt: new Date() }
    await this.collection.insertOne(sighting).catch((err: unknown) => {
      if (!isDuplicateKey(err)) this.log.warn({ err, stream, seq }, 'could not record the poison message')
    })
  }

  async count(): Promise<number> {
    return new Set((await this.sightings()).map((sighting) => sighting.message)).size
  }

  /** The newest `limit` messages, each with every consumer that met it. */
  async latest(limit: number): Promise<PoisonReport[]> {
    const reports = new Map<string, PoisonReport>()
    for (const { message, stream, seq, subject, reason, consumers, seenAt } of (await this.sightings()).reverse()) {
      const report = reports.get(message)
      if (report) report.seenBy.push(...consumers)
      else reports.set(message, { stream, seq, subject, reason, firstSeenAt: seenAt, seenBy: [...consumers] })
    }
    return [...reports.values()].sort((a, b) => b.firstSeenAt.getTime() - a.firstSeenAt.getTime()).slice(0, limit)
  }

  /**
   * The newest sightings first. Documents of the version before one document per sighting
   * (`<stream>#<seq>`, `firstSeenAt`, `seenBy`: written by a build that never reached a release,
   * perhaps on a laptop) read as the sightings they hold.
   */
  private async sightings(): Promise<{ message: string; stream: string; seq: number; subject: string; reason: string; consumers: string[]; seenAt: Date }[]> {
    const docs = await this.collection.find({}).limit(SIGHTINGS_READ).toArray()
    return docs
      .map((doc) => {
        const earlier = doc as Partial<Sighting> & { _id: string; firstSeenAt?: Date; seenBy?: string[] }
        const { stream = '', seq = 0, subject = '', reason = '' } = earlier
        const consumers = earlier.consumer !== undefined ? [earlier.consumer] : (earlier.seenBy ?? [])
        return { message: earlier.message ?? earlier._id, stream, seq, subject, reason, consumers, seenAt: earlier.seenAt ?? earlier.firstSeenAt ?? new Date(0) }
      })
      .sort((a, b) => b.seenAt.getTime() - a.seenAt.getTime())
  }
}

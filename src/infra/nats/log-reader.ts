import { JetStreamApiCodes, JetStreamApiError, JetStreamError, type JetStreamManager, type StoredMsg } from '@nats-io/jetstream'
import type { RecordedEvent } from '../../domain/message.js'
import { decodeEvent } from './event-codec.js'
import { EventStoreUnavailableError } from './event-store-errors.js'

const BATCH = 256

/**
 * Reads a stream's events on a subject filter. Direct gets first: any replica answers
 * them, which spreads the load, but on a cluster a replica may not have stored the latest
 * messages yet (invariant 10). So a read that must reach a sequence the caller knows of,
 * or that finds nothing, is checked with the stream leader, and re-read from it when the
 * replica was behind.
 */
export class LogReader {
  constructor(private readonly jsm: JetStreamManager) {}

  /** Events on `filter` from `fromSeq`; at least up to `atLeast` when the caller knows the log holds that much. */
  async read(stream: string, filter: string, fromSeq: number, atLeast = 0): Promise<RecordedEvent[]> {
    const events = await this.readDirect(stream, filter, fromSeq)
    const last = events.at(-1)?.seq ?? 0
    if (last >= atLeast && (last > 0 || (await this.leaderLast(stream, filter)) < fromSeq)) return events
    return this.readFromLeader(stream, filter, fromSeq)
  }

  /** The last sequence on `filter` (0 if none), confirmed with the leader when a replica knows none. */
  async last(stream: string, filter: string): Promise<number> {
    const direct = await this.getOne(`the last event on ${filter}`, () => this.jsm.direct.getMessage(stream, { last_by_subj: filter }))
    return direct?.seq ?? (await this.leaderLast(stream, filter))
  }

  private async leaderLast(stream: string, filter: string): Promise<number> {
    const msg = await this.getOne(`the last event on ${filter}`, () => this.jsm.streams.getMessage(stream, { last_by_subj: filter }))
    return msg?.seq ?? 0
  }

  private async readDirect(stream: string, filter: string, fromSeq: number): Promise<RecordedEvent[]> {
    const events: RecordedEvent[] = []
    for (let from = fromSeq; ;) {
      const batch = await this.directBatch(stream, filter, from)
      for (const msg of batch) events.push(decodeEvent(msg))
      if (batch.length < BATCH) return events
      from = (batch.at(-1)?.seq ?? from) + 1
    }
  }

  /** One message a request: only when a replica was behind, for the handful of events of one aggregate. */
  private async readFromLeader(stream: string, filter: string, fromSeq: number): Promise<RecordedEvent[]> {
    const events: RecordedEvent[] = []
    for (let from = fromSeq; ;) {
      const next = { seq: from, next_by_subj: filter }
      const msg = await this.getOne(`${filter} from the leader of ${stream}`, () => this.jsm.streams.getMessage(stream, next))
      if (!msg) return events
      events.push(decodeEvent(msg))
      from = msg.seq + 1
    }
  }

  private async directBatch(stream: string, filter: string, seq: number): Promise<StoredMsg[]> {
    try {
      const iterator = await this.jsm.direct.getBatch(stream, { seq, next_by_subj: filter, batch: BATCH })
      const messages: StoredMsg[] = []
      for await (const msg of iterator) messages.push(msg)
      return messages
    } catch (err) {
      // Nothing (more) on the filter: the direct get answers 404.
      if (isNoMessage(err)) return []
      throw new EventStoreUnavailableError(`could not read ${filter} from ${stream}`, { cause: err })
    }
  }

  private async getOne(what: string, read: () => Promise<StoredMsg | null>): Promise<StoredMsg | null> {
    try {
      return await read()
    } catch (err) {
      if (isNoMessage(err)) return null
      throw new EventStoreUnavailableError(`could not read ${what}`, { cause: err })
    }
  }
}

export function isNoMessage(err: unknown): boolean {
  if (err instanceof JetStreamError && 'code' in err && err.code === 404) return true
  return err instanceof JetStreamApiError && err.code === JetStreamApiCodes.NoMessageFound
}

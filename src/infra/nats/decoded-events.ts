import { LRUCache } from 'lru-cache'
import type { RecordedEvent } from '../../domain/message.js'
import { type StoredMessage, tryDecodeEvent, UndecodableMessageError } from './decode.js'

interface Entry {
  /** A copy: a delivered message's bytes are a view of the client's read buffer, which a kept view would hold whole. */
  readonly bytes: Uint8Array
  readonly event: RecordedEvent
}

/**
 * The events a process decoded last, so that a stored event is decoded once however many of the
 * process's readers are delivered it: with every role in one process, a task's TaskCreated
 * reaches the worker, the projector and the spend view, its TaskCompleted the projector and the
 * spend view, and the api and the worker read the same account and session events task after
 * task. A decoded event is read-only, and shared.
 *
 * decodeEvent is a function of a message's subject, sequence and bytes only; an entry answers a
 * message only when all three are the same (a stream deleted and made again restarts its
 * sequences). Kept up to `maxBytes` of stored messages, the least recently used going first, and
 * none larger than a quarter of that; an event decoded takes about as much again. What is not an
 * event is not kept.
 */
export class DecodedEvents {
  /** Made at the first event kept: a process that keeps none (a projector, the CLI) allocates nothing. */
  private entries: LRUCache<string, Entry> | undefined

  constructor(private readonly maxBytes: number) {}

  /**
   * The event the message holds, or why it holds none. `keep: false` uses what is kept but keeps
   * nothing new: for a reader that is mostly the only one of what it reads (a projector, a scan
   * of an account's history).
   */
  tryDecode(msg: StoredMessage, { keep = true }: { readonly keep?: boolean } = {}): RecordedEvent | UndecodableMessageError {
    if (this.entries === undefined && !keep) return tryDecodeEvent(msg)
    this.entries ??= lruOf(this.maxBytes)
    const entries = this.entries
    const key = `${msg.seq} ${msg.subject}`
    const known = entries.get(key)
    if (known !== undefined && Buffer.compare(known.bytes, msg.data) === 0) return known.event
    const event = tryDecodeEvent(msg)
    if (keep && !(event instanceof UndecodableMessageError)) entries.set(key, { bytes: new Uint8Array(msg.data), event })
    else if (known !== undefined) entries.delete(key)
    return event
  }

  /** Entries held, and the stored bytes they hold. */
  get held(): { readonly entries: number; readonly bytes: number } {
    return { entries: this.entries?.size ?? 0, bytes: this.entries?.calculatedSize ?? 0 }
  }
}

function lruOf(maxBytes: number): LRUCache<string, Entry> {
  // `max` as well: lru-cache allocates its arrays for that many entries up front (without it they
  // grow, more slowly). One per 512 bytes, at least 64: 8,192 for 4 MiB, about 0.2 MiB of arrays.
  // A task's events are 0.5 to 6 KB as stored, so the bytes bound the entries first.
  return new LRUCache({
    max: Math.max(64, Math.floor(maxBytes / 512)),
    maxSize: maxBytes,
    maxEntrySize: Math.max(1, Math.floor(maxBytes / 4)),
    // Never 0 (which lru-cache refuses): a message without bytes is not an event, so is not kept.
    sizeCalculation: (entry) => entry.bytes.byteLength,
  })
}

/**
 * This process's. A projector may apply a burst's events a few hundred milliseconds after the
 * worker and the spend view read them (measured: 1,024 entries, about 2.5 MiB, kept every
 * reader of a 1,000-task burst but the first from decoding again; 256 did not).
 */
export const decodedEvents = new DecodedEvents(4 * 1024 * 1024)

/** tryDecodeEvent, once a process for the same stored message: see DecodedEvents. */
export function tryDecodeOnce(msg: StoredMessage, options?: { readonly keep?: boolean }): RecordedEvent | UndecodableMessageError {
  return decodedEvents.tryDecode(msg, options)
}

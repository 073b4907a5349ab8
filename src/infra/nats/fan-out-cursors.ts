import { JetStreamApiCodes, JetStreamApiError, StorageType, type ConsumerInfo, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream'
import type { KV, KvEntry } from '@nats-io/kv'
import { openBucket } from './buckets.js'
import { isWrongLastSequence } from './conflicts.js'
import { eventSubjectParts, streamOf, SUBJECT_ROOT } from './subjects.js'

const BUCKET = 'mats_webhook_fan_out'
const TASKS_STREAM = streamOf('task')

/** How far an account's task events have been turned into delivery jobs, and who is at it. */
export interface FanOutCursor {
  /** Every event of the account up to this sequence of MATS_TASKS has its jobs queued. */
  readonly seq: number
  /** The webhooks process fanning the account out now, if any, until `until` (epoch ms). */
  readonly holder: string | null
  readonly until: number
  readonly revision: number
}

type CursorValue = Omit<FanOutCursor, 'revision'>

/**
 * One cursor per account with webhooks, in KV `mats_webhook_fan_out` (file storage), key the
 * account id (ADR 0042). A webhooks process claims an account by writing itself as its holder
 * (compare-and-set on the revision), reads the account's events after `seq`, queues their jobs,
 * then moves `seq` on, again by compare-and-set: two processes never both think they hold it,
 * and one that lost its claim (held past `until`) finds out at its next write.
 */
export class FanOutCursors {
  private constructor(private readonly kv: KV) {}

  static async open(js: JetStreamClient, options: { replicas: number }): Promise<FanOutCursors> {
    // File storage: a cursor lost would fan the account out again from nowhere.
    return new FanOutCursors(await openBucket(js, BUCKET, { history: 1, replicas: options.replicas, storage: StorageType.File }))
  }

  /**
   * Called before an account's webhook is registered: the account's fan-out starts at the
   * task log's head now, so every task event stored after the registration is fanned out
   * and the history before it is never read. An existing cursor stays where it is.
   */
  static async startAccount(js: JetStreamClient, jsm: JetStreamManager, accountId: string, options: { replicas: number }): Promise<void> {
    const cursors = await FanOutCursors.open(js, options)
    await cursors.ensure(accountId, (await jsm.streams.info(TASKS_STREAM)).state.last_seq)
  }

  /** Creates the account's cursor at `seq` unless it has one. */
  async ensure(accountId: string, seq: number): Promise<void> {
    try {
      await this.kv.create(accountId, encode({ seq, holder: null, until: 0 }))
    } catch (err) {
      if (!isWrongLastSequence(err)) throw err
    }
  }

  async get(accountId: string): Promise<FanOutCursor | null> {
    const entry = await this.kv.get(accountId)
    return entry && entry.operation === 'PUT' ? decode(entry) : null
  }

  /** Writes `next` over `previous`; null when the cursor changed since `previous` was read (someone else holds it now). */
  async write(accountId: string, previous: FanOutCursor, next: CursorValue): Promise<FanOutCursor | null> {
    try {
      const revision = await this.kv.update(accountId, encode(next), previous.revision)
      return { ...next, revision }
    } catch (err) {
      if (isWrongLastSequence(err)) return null
      throw err
    }
  }

  /**
   * At start: every account that has had a webhook (the subjects of MATS_WEBHOOKS) and has no
   * cursor gets one. Upgrading from the one fan-out consumer (before ADR 0042), at where it had
   * got to (everything up to it was fanned out), and the consumer goes; otherwise (a bucket
   * lost) at the log's head. Returns the accounts given a cursor.
   */
  async reconcile(jsm: JetStreamManager, legacyConsumer: string): Promise<number> {
    const from = (await legacyPosition(jsm, legacyConsumer)) ?? (await jsm.streams.info(TASKS_STREAM)).state.last_seq
    const registrations = await jsm.streams.info(streamOf('webhook'), { subjects_filter: `${SUBJECT_ROOT}.webhook.>` })
    const accounts = new Set(Object.keys(registrations.state.subjects ?? {}).flatMap((subject) => eventSubjectParts(subject).accountId || []))
    for await (const key of await this.kv.keys()) accounts.delete(key)
    for (const accountId of accounts) await this.ensure(accountId, from)
    await jsm.consumers.delete(TASKS_STREAM, legacyConsumer).catch(() => undefined)
    return accounts.size
  }

  /** Every account's cursor, the current ones first, then each change; ends when `stop` is called. */
  async watch(onChange: (accountId: string, cursor: FanOutCursor) => void): Promise<{ stop: () => void; done: Promise<void> }> {
    const watcher = await this.kv.watch({ key: '>', ignoreDeletes: true })
    const done = (async () => {
      for await (const entry of watcher) {
        const cursor = entry.operation === 'PUT' ? decode(entry) : null
        if (cursor) onChange(entry.key, cursor)
      }
    })()
    return { stop: () => watcher.stop(), done }
  }

  /** The accounts' cursors, for tests and tools: who holds which now. */
  async all(): Promise<Map<string, FanOutCursor>> {
    const cursors = new Map<string, FanOutCursor>()
    for await (const key of await this.kv.keys()) {
      const cursor = await this.get(key)
      if (cursor) cursors.set(key, cursor)
    }
    return cursors
  }
}

async function legacyPosition(jsm: JetStreamManager, consumer: string): Promise<number | null> {
  try {
    return fannedOutUpTo(await jsm.consumers.info(TASKS_STREAM, consumer))
  } catch (err) {
    if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.ConsumerNotFound) return null
    throw err
  }
}

/**
 * Where the one consumer had got to. Its ack floor reads 0 until it acknowledged something, so
 * the delivered sequence says it (the consumer's start, or the last event handed out); with
 * `max_ack_pending: 1` the one event in hand, if any, is that last one.
 */
function fannedOutUpTo(info: ConsumerInfo): number {
  if (info.num_ack_pending === 0) return info.delivered.stream_seq
  if (info.num_ack_pending === 1) return info.delivered.stream_seq - 1
  return info.ack_floor.stream_seq
}

const encode = (value: CursorValue) => JSON.stringify(value)

function decode(entry: KvEntry): FanOutCursor | null {
  try {
    const value = entry.json<Partial<CursorValue>>()
    if (typeof value.seq !== 'number') return null
    return { seq: value.seq, holder: typeof value.holder === 'string' ? value.holder : null, until: typeof value.until === 'number' ? value.until : 0, revision: entry.revision }
  } catch {
    return null
  }
}

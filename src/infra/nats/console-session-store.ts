import { StorageType, type JetStreamClient } from '@nats-io/jetstream'
import type { KV } from '@nats-io/kv'
import { isRecord } from '../../domain/is-record.js'
import { openBucket } from './buckets.js'

const BUCKET = 'mats_console_sessions'
/** The longest idle timeout allowed (CONSOLE_SESSION_IDLE_MS): an entry nobody touched for this long is dropped by NATS itself. */
export const CONSOLE_SESSION_MAX_IDLE_MS = 24 * 60 * 60 * 1000

/** A signed-in console: who it acts for. Holds the key's hash and id, never the key nor the session token. */
export interface ConsoleSessionRecord {
  readonly accountId: string
  readonly keyId: string
  readonly keyHash: string
  readonly csrfToken: string
  readonly createdAt: number
  readonly lastSeenAt: number
}

/**
 * Console sessions shared by every API process, in a file-backed KV bucket (they outlive a
 * restart) keyed by the SHA-256 of the session token: what is at rest cannot be replayed as
 * a cookie. Every write of an entry restarts its age, so the bucket's max age drops sessions
 * idle past the longest allowed timeout even if no request ever sees them again.
 */
export class ConsoleSessionStore {
  private constructor(private readonly kv: KV) {}

  static async open(js: JetStreamClient, replicas: number): Promise<ConsoleSessionStore> {
    return new ConsoleSessionStore(await openBucket(js, BUCKET, { history: 1, replicas, ttl: CONSOLE_SESSION_MAX_IDLE_MS, storage: StorageType.File }))
  }

  async put(id: string, record: ConsoleSessionRecord): Promise<void> {
    await this.kv.put(id, JSON.stringify(record))
  }

  async get(id: string): Promise<ConsoleSessionRecord | null> {
    const entry = await this.kv.get(id)
    if (entry?.operation !== 'PUT') return null
    return parseRecord(entry.string())
  }

  async delete(id: string): Promise<void> {
    await this.kv.purge(id)
  }
}

function parseRecord(text: string): ConsoleSessionRecord | null {
  try {
    const value: unknown = JSON.parse(text)
    if (!isRecord(value)) return null
    const { accountId, keyId, keyHash, csrfToken, createdAt, lastSeenAt } = value
    if (typeof accountId !== 'string' || typeof keyId !== 'string' || typeof keyHash !== 'string' || typeof csrfToken !== 'string') return null
    if (typeof createdAt !== 'number' || typeof lastSeenAt !== 'number') return null
    return { accountId, keyId, keyHash, csrfToken, createdAt, lastSeenAt }
  } catch {
    return null
  }
}

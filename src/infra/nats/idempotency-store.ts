import { createHash } from 'node:crypto'
import { StorageType, type JetStreamClient } from '@nats-io/jetstream'
import type { KV } from '@nats-io/kv'
import { isRecord } from '../../domain/is-record.js'
import { openBucket } from './buckets.js'
import { isWrongLastSequence } from './conflicts.js'

const BUCKET = 'mats_idempotency'
/** How long a key is remembered after its answer: the window the docs promise. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000
/**
 * An entry still in flight after this long belongs to a process that died before it could
 * answer: POST /v1/tasks holds a request for at most 120 s (`waitSeconds`), plus slack for
 * NATS and MongoDB timeouts. A later request with the key then runs as a first request.
 */
export const IN_FLIGHT_STALE_MS = 150_000
/** Each pass loses a race to another request only by a write in between, so a few passes suffice. */
const MAX_PASSES = 8

/** The answer stored for a key, sent again as it was. */
export interface StoredResponse {
  readonly status: number
  readonly contentType: string
  readonly body: string
  /** The Location of a created resource, when the answer had one. */
  readonly location?: string
}

type Entry = { readonly state: 'in-flight'; readonly fingerprint: string; readonly startedAt: number } | ({ readonly state: 'done'; readonly fingerprint: string } & StoredResponse)

export type Begun =
  | { readonly kind: 'claimed'; readonly revision: number }
  | { readonly kind: 'replay'; readonly response: StoredResponse }
  | { readonly kind: 'in-flight' }
  | { readonly kind: 'other-request' }

/**
 * Idempotency-Key entries shared by every API process, in a file-backed KV bucket so they
 * outlive restarts. A first request `create`s an in-flight entry (atomic: of N concurrent
 * requests with one key, exactly one gets it) and later replaces it with its answer, by
 * compare-and-set on the revision it created, so a request that lost its entry to a
 * takeover cannot overwrite the winner's.
 */
export class IdempotencyStore {
  private constructor(private readonly kv: KV) {}

  static async open(js: JetStreamClient, replicas: number): Promise<IdempotencyStore> {
    return new IdempotencyStore(await openBucket(js, BUCKET, { history: 1, replicas, ttl: IDEMPOTENCY_TTL_MS, storage: StorageType.File }))
  }

  /** Keys are per account; hashed because a caller's key may hold any printable character. */
  static key(accountId: string, idempotencyKey: string): string {
    return createHash('sha256').update(`${accountId}\n${idempotencyKey}`).digest('hex')
  }

  /** Claims `key` for a request whose body has `fingerprint`, or says what holds it. */
  async begin(key: string, fingerprint: string, now: number): Promise<Begun> {
    const inFlight = JSON.stringify({ state: 'in-flight', fingerprint, startedAt: now } satisfies Entry)
    for (let pass = 0; pass < MAX_PASSES; pass++) {
      const created = await this.whenFree(() => this.kv.create(key, inFlight))
      if (created !== undefined) return { kind: 'claimed', revision: created }
      const found = await this.kv.get(key)
      // Deleted or expired since the create failed: the next pass creates it.
      if (found?.operation !== 'PUT') continue
      const entry = parseEntry(found.string())
      if (entry && entry.fingerprint !== fingerprint) return { kind: 'other-request' }
      if (entry?.state === 'done')
        return { kind: 'replay', response: { status: entry.status, contentType: entry.contentType, body: entry.body, ...(entry.location ? { location: entry.location } : {}) } }
      if (entry && now - entry.startedAt < IN_FLIGHT_STALE_MS) return { kind: 'in-flight' }
      // Stale or unreadable: taken over by compare-and-set, so only one request gets it.
      const taken = await this.whenFree(() => this.kv.update(key, inFlight, found.revision))
      if (taken !== undefined) return { kind: 'claimed', revision: taken }
    }
    return { kind: 'in-flight' }
  }

  /** Stores the answer of the request that claimed `revision`; false when it no longer held the key. */
  async complete(key: string, revision: number, fingerprint: string, response: StoredResponse): Promise<boolean> {
    const done = JSON.stringify({ state: 'done', fingerprint, ...response } satisfies Entry)
    return (await this.whenFree(() => this.kv.update(key, done, revision))) !== undefined
  }

  /** Frees the key for a retry (the answer was not one to keep), unless another request took it. */
  async abandon(key: string, revision: number): Promise<void> {
    await this.whenFree(() => this.kv.delete(key, { previousSeq: revision }))
  }

  /** The write's revision, or undefined when the entry had changed under it (a lost compare-and-set). */
  private async whenFree<T>(write: () => Promise<T>): Promise<T | undefined> {
    try {
      return await write()
    } catch (err) {
      if (isWrongLastSequence(err)) return undefined
      throw err
    }
  }
}

function parseEntry(text: string): Entry | undefined {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  if (!isRecord(value) || typeof value.fingerprint !== 'string') return undefined
  const { fingerprint } = value
  if (value.state === 'in-flight' && typeof value.startedAt === 'number') return { state: 'in-flight', fingerprint, startedAt: value.startedAt }
  if (value.state === 'done' && typeof value.status === 'number' && typeof value.contentType === 'string' && typeof value.body === 'string') {
    const location = typeof value.location === 'string' ? { location: value.location } : {}
    return { state: 'done', fingerprint, status: value.status, contentType: value.contentType, body: value.body, ...location }
  }
  return undefined
}

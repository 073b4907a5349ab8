import type { Collection } from 'mongodb'
import type { Logger } from 'pino'
import { apiKeysProjection, type ApiKeyDoc, type ReadModels, type Stored } from '../../projections/index.js'
import { hashApiKey, hashesEqual, isWellFormedApiKey } from '../domain/accounts/api-key-secret.js'
import { UnauthorizedError } from '../domain/errors.js'
import { isDuplicateKey } from '../infra/mongo/errors.js'
import { settleWithin } from '../infra/deadline.js'
import { isDependencyUnavailable } from '../infra/unavailable.js'
import type { Principal } from '../contract/principal.js'

export type { Principal } from '../contract/principal.js'

interface UsageDoc {
  _id: string
  lastUsedAt: Date
}

const USAGE_WRITE_INTERVAL_MS = 60_000
/** Only stored keys enter this cache, so nobody outside can fill it. */
const MAX_CACHED_KEYS = 10_000
/** Anyone can send new unknown keys: misses have their own bound and never evict keys. */
const MAX_CACHED_MISSES = 10_000
/**
 * How long a request with a key this process has read before waits for that key's refresh
 * before it is answered from the last read. A healthy MongoDB answers in milliseconds; one out
 * of reach answers only after MONGODB_TIMEOUT_MS, which a POST (it needs only NATS) must not
 * spend on the key check.
 */
const KNOWN_KEY_REFRESH_WAIT_MS = 200

/**
 * Resolves a bearer key to its account. Lookups are cached for at most `ttlMs` (`AUTH_CACHE_TTL_MS`, ≤ 4 s),
 * which bounds how long a revoked key keeps working in a process, MongoDB willing: a key read
 * before is not held up more than 200 ms by its refresh, which goes on and is cached when
 * MongoDB answers. Expiry is checked on every request. Hashes no key has are cached the same way, apart, so a flood of made-up
 * keys neither reaches the database twice per hash nor pushes real keys out; a miss is
 * forgotten as soon as a key with that hash is created (`forgetMiss`). `lastUsedAt` lives
 * outside the event log (it is operational, not history) and is written at most once a
 * minute per key and process.
 */
export class ApiKeyAuthenticator {
  /** Stored keys by hash; an entry past `until` is looked up again but still marks a real key. */
  private readonly keys = new Map<string, { doc: Stored<ApiKeyDoc>; until: number }>()
  private readonly misses = new Map<string, number>()
  private readonly usageWritten = new Map<string, number>()
  /** lastUsedAt writes under way, by key: GET /v1/me waits for its own. */
  private readonly usageWriting = new Map<string, Promise<void>>()
  /** One read per hash at a time: the requests of a key whose entry expired share it. */
  private readonly refreshing = new Map<string, Refresh>()
  private readonly ttlMs: number
  private readonly readGivenUpMs: number

  /**
   * `ttlMs`: AUTH_CACHE_TTL_MS. `readGivenUpMs` (MONGODB_TIMEOUT_MS): a read that has not
   * answered by then is not waited on by later requests, which read again: a connection that
   * hangs (the client sets no socket timeout) must not keep the last read in force for as long.
   */
  constructor(
    private readonly readModels: ReadModels,
    times: { readonly ttlMs: number; readonly readGivenUpMs: number },
    private readonly clock: () => Date,
    private readonly log?: Logger,
  ) {
    this.ttlMs = times.ttlMs
    this.readGivenUpMs = times.readGivenUpMs
  }

  get usage(): Collection<UsageDoc> {
    return this.readModels.db.collection<UsageDoc>('api_key_usage')
  }

  /**
   * `admitUnknownKey` runs before a key this process has never found is looked up, and may
   * throw to refuse it (the failed-authentication limit); keys it has found are not held up.
   */
  async authenticate(authorization: string | undefined, admitUnknownKey: () => void = () => undefined): Promise<Principal> {
    return this.authenticateKey(bearerToken(authorization), admitUnknownKey)
  }

  /** The key itself, as pasted into the console's sign-in form. */
  async authenticateKey(key: string, admitUnknownKey: () => void = () => undefined): Promise<Principal> {
    if (!isWellFormedApiKey(key)) throw new UnauthorizedError('invalid API key')
    const hash = hashApiKey(key)
    if (!this.keys.has(hash)) admitUnknownKey()
    return this.authenticateHash(hash)
  }

  /**
   * A key known by its hash only (a console session keeps the hash, never the key): looked up
   * through the same cache, so its revocation is seen within AUTH_CACHE_TTL_MS here too.
   */
  async authenticateHash(hash: string): Promise<Principal> {
    const doc = await this.lookup(hash)
    const now = this.clock()
    if (!doc || !hashesEqual(doc.keyHash, hash)) throw new UnauthorizedError('invalid API key')
    if (doc.revokedAt) throw new UnauthorizedError('API key revoked')
    if (doc.expiresAt && Date.parse(doc.expiresAt) <= now.getTime()) throw new UnauthorizedError('API key expired')
    this.recordUse(doc._id, now)
    return { accountId: doc.accountId, keyId: doc._id }
  }

  /** A key with this hash now exists: the next request looks it up instead of trusting the miss. */
  forgetMiss(keyHash: string): void {
    this.misses.delete(keyHash)
  }

  async keyInfo(keyId: string): Promise<(Stored<ApiKeyDoc> & { lastUsedAt: Date | null }) | null> {
    await this.usageWriting.get(keyId)
    const [doc, usage] = await Promise.all([this.readModels.collection<ApiKeyDoc>(apiKeysProjection).findOne({ _id: keyId }), this.usage.findOne({ _id: keyId })])
    return doc ? { ...doc, lastUsedAt: usage?.lastUsedAt ?? null } : null
  }

  private async lookup(hash: string): Promise<Stored<ApiKeyDoc> | null> {
    const now = Date.now()
    const cached = this.keys.get(hash)
    if (cached && cached.until > now) return cached.doc
    if ((this.misses.get(hash) ?? 0) > now) return null
    const refreshed = this.refresh(hash, cached?.doc)
    if (!cached) return refreshed
    // A late refresh goes on (its failure is the refresh's own); this request is answered as last read.
    return (await settleWithin(refreshed, KNOWN_KEY_REFRESH_WAIT_MS)).outcome === 'late' ? cached.doc : refreshed
  }

  /**
   * Reads the key again and caches what it finds, for every request waiting on it. A request
   * that stopped waiting (answered from the last read) leaves it running: a revocation is
   * cached as soon as MongoDB answers. A read given up on (older than `readGivenUpMs`) is
   * replaced by a new one, and its own answer, should it come, is dropped as stale.
   */
  private refresh(hash: string, lastSeen: Stored<ApiKeyDoc> | undefined): Promise<Stored<ApiKeyDoc> | null> {
    const pending = this.refreshing.get(hash)
    if (pending && Date.now() - pending.startedAt < this.readGivenUpMs) return pending.read
    const current = (): boolean => this.refreshing.get(hash) === refresh
    const read = this.findByHash(hash, lastSeen).then((doc) => {
      if (current()) this.remember(hash, doc)
      return doc
    })
    const refresh: Refresh = { read, startedAt: Date.now() }
    this.refreshing.set(hash, refresh)
    const forget = () => {
      if (current()) this.refreshing.delete(hash)
    }
    read.then(forget, forget)
    return read
  }

  private remember(hash: string, doc: Stored<ApiKeyDoc> | null): void {
    const now = Date.now()
    // Full, the entry stored longest ago goes (a Map iterates in insertion order), not all of
    // them: clearing the lot forgot every key read before, which is what answers while MongoDB is away.
    if (doc) {
      this.keys.delete(hash)
      if (this.keys.size >= MAX_CACHED_KEYS) this.keys.delete(this.keys.keys().next().value ?? '')
      this.keys.set(hash, { doc, until: now + this.ttlMs })
    } else {
      this.keys.delete(hash)
      this.misses.delete(hash)
      if (this.misses.size >= MAX_CACHED_MISSES) this.misses.delete(this.misses.keys().next().value ?? '')
      this.misses.set(hash, now + this.ttlMs)
    }
  }

  /**
   * While MongoDB is out of reach, a key this process has already seen keeps working as it
   * was last read (its revocation is seen when MongoDB is back): POSTs and GETs by id need
   * only NATS, and should not all fail for the key check alone (invariant 11).
   */
  private async findByHash(hash: string, lastSeen: Stored<ApiKeyDoc> | undefined): Promise<Stored<ApiKeyDoc> | null> {
    try {
      return await this.readModels.collection<ApiKeyDoc>(apiKeysProjection).findOne({ keyHash: hash })
    } catch (err) {
      if (!lastSeen || !isDependencyUnavailable(err)) throw err
      this.log?.warn({ keyId: lastSeen._id }, 'MongoDB out of reach: key accepted as last read')
      return lastSeen
    }
  }

  /**
   * At most once a minute per key and process. Not waited for by the request (with MongoDB
   * away it would hold it for a timeout); GET /v1/me waits for it in keyInfo.
   */
  private recordUse(keyId: string, now: Date): void {
    const last = this.usageWritten.get(keyId) ?? 0
    if (now.getTime() - last < USAGE_WRITE_INTERVAL_MS) return
    this.usageWritten.set(keyId, now.getTime())
    const write = () => this.usage.updateOne({ _id: keyId }, { $max: { lastUsedAt: now } }, { upsert: true })
    // Two processes upserting a key's first use at once: one insert loses, and its retry updates.
    const writing = write()
      .catch((err: unknown) => (isDuplicateKey(err) ? write() : Promise.reject(err)))
      .then(
        () => undefined,
        (err: unknown) => {
          this.usageWritten.delete(keyId)
          this.log?.warn({ err, keyId }, 'could not record lastUsedAt')
        },
      )
      .finally(() => this.usageWriting.delete(keyId))
    this.usageWriting.set(keyId, writing)
  }
}

interface Refresh {
  readonly read: Promise<Stored<ApiKeyDoc> | null>
  readonly startedAt: number
}

function bearerToken(authorization: string | undefined): string {
  if (!authorization) throw new UnauthorizedError('missing Authorization header: send "Authorization: Bearer <API key>"')
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization)
  if (!match?.[1]) throw new UnauthorizedError('malformed Authorization header: expected "Bearer <API key>"')
  return match[1]
}

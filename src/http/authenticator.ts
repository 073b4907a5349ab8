import type { Collection } from 'mongodb'
import type { Logger } from 'pino'
import { apiKeysProjection, type ApiKeyDoc, type ReadModels, type Stored } from '../../projections/index.js'
import { hashApiKey, hashesEqual, isWellFormedApiKey } from '../domain/accounts/api-key-secret.js'
import { UnauthorizedError } from '../domain/errors.js'
import { isDuplicateKey } from '../infra/mongo/errors.js'

export interface Principal {
  readonly accountId: string
  readonly keyId: string
}

interface UsageDoc { _id: string; lastUsedAt: Date }

const USAGE_WRITE_INTERVAL_MS = 60_000
const MAX_CACHED_KEYS = 10_000

/**
 * Resolves a bearer key to its account. Lookups are cached for at most `ttlMs` (≤ 5 s),
 * which bounds how long a revoked key keeps working in a process. Expiry is checked on
 * every request. `lastUsedAt` lives outside the event log (it is operational, not
 * history) and is written at most once a minute per key and process.
 */
export class ApiKeyAuthenticator {
  private readonly cache = new Map<string, { doc: Stored<ApiKeyDoc> | null; until: number }>()
  private readonly usageWritten = new Map<string, number>()

  constructor(
    private readonly readModels: ReadModels,
    private readonly ttlMs: number,
    private readonly clock: () => Date,
    private readonly log?: Logger,
  ) {}

  get usage(): Collection<UsageDoc> {
    return this.readModels.db.collection<UsageDoc>('api_key_usage')
  }

  async authenticate(authorization: string | undefined): Promise<Principal> {
    const key = bearerToken(authorization)
    const hash = hashApiKey(key)
    const doc = await this.lookup(hash)
    const now = this.clock()
    if (!doc || !hashesEqual(doc.keyHash, hash)) throw new UnauthorizedError('invalid API key')
    if (doc.revokedAt) throw new UnauthorizedError('API key revoked')
    if (doc.expiresAt && Date.parse(doc.expiresAt) <= now.getTime()) throw new UnauthorizedError('API key expired')
    await this.recordUse(doc._id, now)
    return { accountId: doc.accountId, keyId: doc._id }
  }

  async keyInfo(keyId: string): Promise<(Stored<ApiKeyDoc> & { lastUsedAt: Date | null }) | null> {
    const [doc, usage] = await Promise.all([
      this.readModels.collection<ApiKeyDoc>(apiKeysProjection).findOne({ _id: keyId }),
      this.usage.findOne({ _id: keyId }),
    ])
    return doc ? { ...doc, lastUsedAt: usage?.lastUsedAt ?? null } : null
  }

  private async lookup(hash: string): Promise<Stored<ApiKeyDoc> | null> {
    const now = Date.now()
    const cached = this.cache.get(hash)
    if (cached && cached.until > now) return cached.doc
    const doc = await this.readModels.collection<ApiKeyDoc>(apiKeysProjection).findOne({ keyHash: hash })
    if (this.cache.size >= MAX_CACHED_KEYS) this.cache.clear()
    this.cache.set(hash, { doc, until: now + this.ttlMs })
    return doc
  }

  private async recordUse(keyId: string, now: Date): Promise<void> {
    const last = this.usageWritten.get(keyId) ?? 0
    if (now.getTime() - last < USAGE_WRITE_INTERVAL_MS) return
    this.usageWritten.set(keyId, now.getTime())
    const write = () => this.usage.updateOne({ _id: keyId }, { $max: { lastUsedAt: now } }, { upsert: true })
    // Two processes upserting a key's first use at once: one insert loses, and its retry updates.
    await write()
      .catch((err: unknown) => (isDuplicateKey(err) ? write() : Promise.reject(err)))
      .catch((err: unknown) => {
        this.usageWritten.delete(keyId)
        this.log?.warn({ err, keyId }, 'could not record lastUsedAt')
      })
  }
}

function bearerToken(authorization: string | undefined): string {
  if (!authorization) throw new UnauthorizedError('missing Authorization header: send "Authorization: Bearer <API key>"')
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization)
  if (!match?.[1]) throw new UnauthorizedError('malformed Authorization header: expected "Bearer <API key>"')
  if (!isWellFormedApiKey(match[1])) throw new UnauthorizedError('invalid API key')
  return match[1]
}

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { hashApiKey } from '../../domain/accounts/api-key-secret.js'
import { UnauthorizedError } from '../../domain/errors.js'
import type { ConsoleSessionRecord, ConsoleSessionStore } from '../../infra/nats/console-session-store.js'
import type { ApiKeyAuthenticator, Principal } from '../authenticator.js'
import { isSessionToken } from './cookie.js'

/** What the console is told about its own session (never the token: that stays in the cookie). */
export interface ConsoleSessionView {
  readonly accountId: string
  readonly keyId: string
  readonly csrfToken: string
  readonly idleTimeoutMs: number
}

export interface ResolvedSession {
  readonly principal: Principal
  readonly record: ConsoleSessionRecord
}

/** A session's last use is written at most this often (and more often under a short idle timeout). */
const MAX_TOUCH_INTERVAL_MS = 60_000

/**
 * Console sessions: a pasted API key exchanged for a random token (the cookie). Each use
 * checks the key again by its hash through the authenticator's cache, so a revoked or
 * expired key ends its sessions within AUTH_CACHE_TTL_MS (≤ 4 s); a session unused for
 * `idleMs` ends at its next use (and is gone from NATS after the longest allowed timeout).
 */
export class ConsoleSessions {
  constructor(
    private readonly store: ConsoleSessionStore,
    private readonly authenticator: ApiKeyAuthenticator,
    private readonly idleMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Checks the key (throws UnauthorizedError) and opens a session for it. */
  async signIn(apiKey: string, admitUnknownKey: () => void): Promise<{ token: string; view: ConsoleSessionView }> {
    const principal = await this.authenticator.authenticateKey(apiKey, admitUnknownKey)
    const token = `mcs_${randomBytes(32).toString('base64url')}`
    const at = this.now()
    const record: ConsoleSessionRecord = { ...principal, keyHash: hashApiKey(apiKey), csrfToken: randomBytes(32).toString('base64url'), createdAt: at, lastSeenAt: at }
    await this.store.put(storeId(token), record)
    return { token, view: this.view(record) }
  }

  /**
   * The live session of `token`; throws UnauthorizedError (and forgets the session) when it has
   * ended. `touch: false` (the console's background reads, a stream's re-check) checks it without
   * counting as use, so a console left open with live lists still times out.
   */
  async resolve(token: string | undefined, options: { touch?: boolean } = {}): Promise<ResolvedSession> {
    if (!token || !isSessionToken(token)) throw new UnauthorizedError('no console session: sign in again')
    const id = storeId(token)
    const record = await this.store.get(id)
    if (!record) throw new UnauthorizedError('console session ended: sign in again')
    const at = this.now()
    if (at - record.lastSeenAt > this.idleMs) {
      await this.store.delete(id)
      throw new UnauthorizedError('console session timed out: sign in again')
    }
    const principal = await this.authenticator.authenticateHash(record.keyHash).catch(async (err: unknown) => {
      if (err instanceof UnauthorizedError) await this.store.delete(id)
      throw err
    })
    if (options.touch !== false && at - record.lastSeenAt >= Math.min(MAX_TOUCH_INTERVAL_MS, this.idleMs / 10)) await this.store.put(id, { ...record, lastSeenAt: at })
    return { principal, record }
  }

  async signOut(token: string | undefined): Promise<void> {
    if (token && isSessionToken(token)) await this.store.delete(storeId(token))
  }

  view(record: ConsoleSessionRecord): ConsoleSessionView {
    return { accountId: record.accountId, keyId: record.keyId, csrfToken: record.csrfToken, idleTimeoutMs: this.idleMs }
  }
}

/** Whether the request's CSRF token is the session's, compared in constant time. */
export function csrfMatches(record: ConsoleSessionRecord, given: string | string[] | undefined): boolean {
  if (typeof given !== 'string') return false
  const expected = Buffer.from(record.csrfToken)
  const actual = Buffer.from(given)
  return expected.length === actual.length && timingSafeEqual(expected, actual)
}

/**
 * The header the console sends on reads nobody asked for (a live list read again, a poll, its idle
 * check): they are answered as usual but do not keep the session alive. It can only shorten a
 * session, so it needs no protection.
 */
export const BACKGROUND_HEADER = 'x-console-background'

/** Whether a request says it is a background read (BACKGROUND_HEADER: 1). */
export const isBackground = (headers: Record<string, string | string[] | undefined>) => headers[BACKGROUND_HEADER] === '1'

const storeId = (token: string) => createHash('sha256').update(token).digest('hex')

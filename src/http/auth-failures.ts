import type { FastifyReply } from 'fastify'
import { RateLimitedError } from '../domain/errors.js'
import type { Limiter } from './plugins/rate-limit.js'

const MAX_BLOCKED_ADDRESSES = 10_000

/**
 * Failed authentications per client address, so that made-up keys cannot flood the
 * database with lookups. Every 401 spends one from the address's `auth.failures` quota (the
 * same GCRA state, shared by every API process, as the other limits: one KV write per
 * failure, coalesced per address, and none while blocked). The failure over the quota is
 * answered 429, and from then until its Retry-After the process refuses the address's
 * requests with unknown keys before any lookup, from memory. Keys the process has found
 * in the database are still looked up, so clients with real keys behind the same address
 * (NAT, proxy) keep working; they cost at most one lookup per key per AUTH_CACHE_TTL_MS.
 */
export class AuthFailures {
  private readonly blockedUntil = new Map<string, number>()

  constructor(
    private readonly limiter: Limiter,
    private readonly perMinute: number,
  ) {}

  /** Throws RateLimitedError (429, Retry-After) while `address` is over its quota. */
  assertAdmitted(address: string, reply: FastifyReply): void {
    const until = this.blockedUntil.get(address) ?? 0
    const waitMs = until - Date.now()
    if (waitMs <= 0) return void this.blockedUntil.delete(address)
    throw this.refusal(Math.ceil(waitMs / 1000), reply)
  }

  /** Counts one failed authentication of `address`; throws RateLimitedError for the one over the quota. */
  async record(address: string, reply: FastifyReply): Promise<void> {
    this.assertAdmitted(address, reply)
    try {
      await this.limiter.check('auth.failures', address, reply)
    } catch (err) {
      if (!(err instanceof RateLimitedError)) throw err
      this.block(address, err.retryAfterSeconds)
      throw this.refusal(err.retryAfterSeconds, reply)
    }
  }

  private block(address: string, seconds: number): void {
    const now = Date.now()
    if (this.blockedUntil.size >= MAX_BLOCKED_ADDRESSES) {
      for (const [known, until] of this.blockedUntil) if (until <= now) this.blockedUntil.delete(known)
      if (this.blockedUntil.size >= MAX_BLOCKED_ADDRESSES) this.blockedUntil.clear()
    }
    this.blockedUntil.set(address, now + seconds * 1000)
  }

  private refusal(retryAfter: number, reply: FastifyReply): RateLimitedError {
    void reply.header('retry-after', String(retryAfter))
    return new RateLimitedError(`too many failed authentications from this address (${this.perMinute} per minute); retry in ${retryAfter} s`, retryAfter)
  }
}

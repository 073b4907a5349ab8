import type { FastifyReply } from 'fastify'
import type { RateLimitedError } from '../domain/errors.js'

/** The operation groups of the rate limits (spec section 8, docs/rate-limits.md), for REST and MCP alike. */
export const LIMIT_GROUPS = ['tasks.create', 'tasks.read', 'sessions', 'meta', 'openapi', 'auth.failures', 'webhooks'] as const
export type LimitGroup = (typeof LIMIT_GROUPS)[number]

export interface Limiter {
  /** Admits one request of `group` for `subject` (an account id, or a client address), or throws RateLimitedError. */
  check(group: LimitGroup, subject: string, reply?: FastifyReply): Promise<void>
  /**
   * Admits `count` requests of `group` at once, in order (a batch that counts each of its
   * items): for each, null when admitted, else its refusal. Once one is refused, so are the
   * ones after it. Sets the RateLimit fields, never Retry-After: the caller answers.
   */
  checkEach(group: LimitGroup, subject: string, count: number, reply?: FastifyReply): Promise<(RateLimitedError | null)[]>
}

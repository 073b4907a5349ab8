import type { FastifyReply } from 'fastify'

/** The operation groups of the rate limits (spec section 8, docs/rate-limits.md), for REST and MCP alike. */
export const LIMIT_GROUPS = ['tasks.create', 'tasks.read', 'sessions', 'meta', 'openapi', 'auth.failures', 'webhooks'] as const
export type LimitGroup = (typeof LIMIT_GROUPS)[number]

export interface Limiter {
  /** Admits one request of `group` for `subject` (an account id, or a client address), or throws RateLimitedError. */
  check(group: LimitGroup, subject: string, reply?: FastifyReply): Promise<void>
}

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { Config } from '../../config.js'
import { RateLimitedError } from '../../domain/errors.js'
import type { RateDecision, RatePolicy } from '../../domain/rate-limits/gcra.js'
import { RateLimitStore } from '../../infra/nats/rate-limit-store.js'
import { clientSubject } from '../client-address.js'
import type { LimitGroup, Limiter } from '../../contract/rate-limits.js'

export { LIMIT_GROUPS, type LimitGroup, type Limiter } from '../../contract/rate-limits.js'

const WINDOW_MS = 60_000

/** The groups counted per client address on routes without a key (auth failures are counted by auth.ts). */
export type AddressLimitGroup = Extract<LimitGroup, 'openapi'>

export function policies(config: Config): Record<LimitGroup, RatePolicy> {
  const perMinute = (name: LimitGroup, limit: number): RatePolicy => ({ name, limit, windowMs: WINDOW_MS })
  return {
    'tasks.create': perMinute('tasks.create', config.RATE_LIMIT_TASKS_CREATE_PER_MIN),
    'tasks.read': perMinute('tasks.read', config.RATE_LIMIT_TASKS_READ_PER_MIN),
    sessions: perMinute('sessions', config.RATE_LIMIT_SESSIONS_PER_MIN),
    meta: perMinute('meta', config.RATE_LIMIT_META_PER_MIN),
    openapi: perMinute('openapi', config.RATE_LIMIT_OPENAPI_PER_MIN),
    'auth.failures': perMinute('auth.failures', config.RATE_LIMIT_AUTH_FAILURES_PER_MIN),
    webhooks: perMinute('webhooks', config.RATE_LIMIT_WEBHOOKS_PER_MIN),
  }
}

/**
 * Per-account limits per operation group (spec section 8), shared by all API processes.
 * A /v1 route names its group in `config: { rateLimitGroup }` and the account scope spends it
 * once the key is checked (account-scope.ts), so only authenticated requests spend the
 * account's quota; the public documentation's scope adds `app.rateLimit('openapi')` (docs.ts),
 * counted per client address. Every limited response carries the
 * IETF `RateLimit-Policy` and `RateLimit` fields; a refusal adds `Retry-After`.
 */
export default fp(
  async function rateLimit(app: FastifyInstance) {
    const { config, nc, log } = app.infra
    const table = policies(config)
    const store = config.RATE_LIMITS_ENABLED ? await RateLimitStore.open(nc, config.NATS_STREAM_REPLICAS, WINDOW_MS, log) : null

    const refusal = (group: LimitGroup, retryAfterMs: number): RateLimitedError => {
      const policy = table[group]
      // Whole seconds, rounded up: never earlier than the moment a retry is admitted.
      const retryAfter = Math.max(1, Math.ceil(retryAfterMs / 1000))
      app.infra.metrics.rateLimitRejected(group)
      return new RateLimitedError(`rate limit exceeded for ${group}: ${policy.limit} requests per minute; retry in ${retryAfter} s`, retryAfter)
    }
    const announce = (group: LimitGroup, decision: RateDecision, reply: FastifyReply | undefined): void => {
      const policy = table[group]
      void reply?.header('ratelimit-policy', `"${group}";q=${policy.limit};w=${policy.windowMs / 1000}`)
      void reply?.header('ratelimit', `"${group}";r=${decision.remaining};t=${Math.ceil(decision.resetMs / 1000)}`)
    }

    const limiter: Limiter = {
      async check(group, subject, reply) {
        if (!store) return
        const decision = await store.admit(table[group], `${group}.${kvSafe(subject)}`, Date.now())
        announce(group, decision, reply)
        if (decision.allowed) return
        const refused = refusal(group, decision.retryAfterMs)
        void reply?.header('retry-after', String(refused.retryAfterSeconds))
        throw refused
      },
      async checkEach(group, subject, count, reply) {
        if (!store) return Array.from({ length: count }, () => null)
        const now = Date.now()
        // Asked in order before any answer: the store decides a key's waiting requests together, in arrival order.
        const decisions = await Promise.all(Array.from({ length: count }, () => store.admit(table[group], `${group}.${kvSafe(subject)}`, now)))
        const last = decisions.at(-1)
        if (last) announce(group, last, reply)
        return decisions.map((decision) => (decision.allowed ? null : refusal(group, decision.retryAfterMs)))
      },
    }
    app.decorate('limiter', limiter)
    // Public routes spend per client address; the account scope spends the account's groups.
    app.decorate(
      'rateLimit',
      (group: AddressLimitGroup) =>
        async function limit(request: FastifyRequest, reply: FastifyReply) {
          await limiter.check(group, clientSubject(request.ip), reply)
        },
    )
  },
  { name: 'rate-limit' },
)

/** KV keys allow letters, digits and `-/_=.` only; an IPv6 address has colons. */
function kvSafe(subject: string): string {
  return subject.replace(/[^A-Za-z0-9_=-]/g, '_')
}

declare module 'fastify' {
  interface FastifyInstance {
    limiter: Limiter
    rateLimit: (group: AddressLimitGroup) => (request: FastifyRequest, reply: FastifyReply) => Promise<void>
  }
}

import type { FastifyInstance, FastifyReply } from 'fastify'
import fp from 'fastify-plugin'
import { RateLimitedError } from '../../domain/errors.js'

/** Seconds a client at the cap is asked to wait: streams end with their task, typically within minutes. */
export const STREAM_RETRY_AFTER_S = 10

export interface StreamLimit {
  /** Takes one of the account's stream slots, or throws RateLimitedError (429, Retry-After); call the answer once the stream ends. */
  acquire(accountId: string, reply: FastifyReply): () => void
}

/**
 * A cap on the event streams one account holds open at once (SSE_MAX_STREAMS_PER_ACCOUNT),
 * over every streaming route of this process: each open stream holds a connection, a place
 * in the process's shared live events (ADR 0040) and a timer. Counted per API process, in memory: a count shared between processes
 * would outlive a process that died holding slots (docs/rate-limits.md#open-event-streams).
 */
export default fp(
  async function streamLimit(app: FastifyInstance) {
    const perAccount = app.infra.config.SSE_MAX_STREAMS_PER_ACCOUNT
    const open = new Map<string, number>()
    const limit: StreamLimit = {
      acquire(accountId, reply) {
        const held = open.get(accountId) ?? 0
        if (held >= perAccount) {
          app.infra.metrics.rateLimitRejected('streams')
          void reply.header('retry-after', String(STREAM_RETRY_AFTER_S))
          throw new RateLimitedError(`too many open event streams: this account holds ${held}, the most one server allows; close one or retry in ${STREAM_RETRY_AFTER_S} s`, STREAM_RETRY_AFTER_S)
        }
        open.set(accountId, held + 1)
        let released = false
        return () => {
          if (released) return
          released = true
          const left = (open.get(accountId) ?? 1) - 1
          if (left > 0) open.set(accountId, left)
          else open.delete(accountId)
        }
      },
    }
    app.decorate('streamLimit', limit)
  },
  { name: 'stream-limit' },
)

declare module 'fastify' {
  interface FastifyInstance {
    streamLimit: StreamLimit
  }
}

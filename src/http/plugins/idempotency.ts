import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { IdempotencyStore, type StoredResponse } from '../../infra/nats/idempotency-store.js'
import { AppendInDoubtError } from '../../infra/nats/event-store.js'
import { whileUnreachable } from '../../infra/while-unreachable.js'
import { REPLAYED_HEADER } from '../../contract/idempotency.js'
import { fingerprintOf, keyOf } from '../idempotency-key.js'
import { principalOf } from './auth.js'
import { errorBody } from '../../contract/errors.js'

/** How long the answer of a write stored after its 503 is tried to be read. */
const SETTLED_ANSWER_MS = 30_000
/** What a settled write's answer is stored as: the routes answer JSON. */
const ANSWER_TYPE = 'application/json; charset=utf-8'

interface Claim {
  readonly key: string
  readonly revision: number
  readonly fingerprint: string
}

/** The hooks a route spreads into its options to honour `Idempotency-Key`. */
export interface IdempotencyHooks {
  readonly preHandler: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined>
  readonly onSend: (request: FastifyRequest, reply: FastifyReply, payload: unknown) => Promise<unknown>
}

/** What a route would have answered had its write been acknowledged in time. */
export interface CreatedAnswer {
  readonly status: number
  readonly body: unknown
  readonly location?: string
}

/** A request answered 503 while its write was in doubt: the write, and what to answer should it turn out stored. */
interface InDoubt {
  readonly err: AppendInDoubtError
  readonly answer: () => Promise<CreatedAnswer>
}

/** An answer given below 500 whose writes in doubt are `settled` later: the key then holds `answer()`. */
interface SettlingAnswer {
  readonly settled: Promise<unknown>
  readonly answer: () => Promise<CreatedAnswer>
}

/**
 * `Idempotency-Key` (draft-ietf-httpapi-idempotency-key-header) for the POST routes that
 * create something: `{ ...app.idempotent, schema: { headers: IdempotencyKeyHeader, ... } }`.
 * Runs after authentication, rate limiting and validation, so a refused or malformed
 * request neither takes nor spends a key. The first request with a key claims it; its
 * answer, if below 500 and not a 429, is stored and answered again for 24 h to a request with
 * the same key and body; a 5xx or 429 frees the key, since a retry may then succeed (docs/tasks.md),
 * except a 503 whose write may still be stored (`answerOnceSettled`): the key then waits for it,
 * as it does for an answer with writes in doubt inside it (`answerOnceAllSettled`, a batch).
 */
/** Seconds a retry of a request still in flight is asked to wait: one poll of a 503 being settled. */
const IN_FLIGHT_RETRY_AFTER_S = 1

export default fp(
  async function idempotency(app: FastifyInstance) {
    const store = await IdempotencyStore.open(app.infra.js, app.infra.config.NATS_STREAM_REPLICAS)
    const claims = new WeakMap<FastifyRequest, Claim>()
    const inDoubt = new WeakMap<FastifyRequest, InDoubt>()
    const finals = new WeakMap<FastifyRequest, SettlingAnswer>()

    async function preHandler(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
      const given = request.headers['idempotency-key']
      if (typeof given !== 'string') return undefined
      const key = IdempotencyStore.key(principalOf(request).accountId, keyOf(given))
      const fingerprint = fingerprintOf(request)
      const begun = await store.begin(key, fingerprint, Date.now())
      switch (begun.kind) {
        case 'claimed':
          claims.set(request, { key, revision: begun.revision, fingerprint })
          return undefined
        case 'replay':
          if (begun.response.location) void reply.header('location', begun.response.location)
          return reply.code(begun.response.status).header(REPLAYED_HEADER, 'true').type(begun.response.contentType).send(Buffer.from(begun.response.body))
        case 'other-request':
          return reply.code(422).send(errorBody('idempotency_key_reused', 'headers.idempotency-key: already used with a different request body; send a new key for a new request'))
        case 'in-flight':
          // Retry-After: a client (or a test helper) waits and sends it again, as after a 503.
          return reply
            .code(409)
            .header('retry-after', String(IN_FLIGHT_RETRY_AFTER_S))
            .send(errorBody('idempotency_key_in_flight', 'headers.idempotency-key: a request with this key is still in flight; retry once it has answered (see Retry-After)'))
      }
    }

    async function onSend(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
      const claim = claims.get(request)
      if (!claim) return payload
      claims.delete(request)
      const doubt = inDoubt.get(request)
      inDoubt.delete(request)
      if (doubt && reply.statusCode >= 500) {
        void settleLater(request, claim, settledAnswer(doubt))
        return payload
      }
      const final = finals.get(request)
      finals.delete(request)
      if (final && reply.statusCode < 500) {
        void settleLater(request, claim, finalAnswer(final))
        return payload
      }
      try {
        // A 429 did nothing (a batch refused whole by the rate limit): a retry after Retry-After may succeed.
        if (reply.statusCode < 500 && reply.statusCode !== 429 && typeof payload === 'string') {
          const location = reply.getHeader('location')
          const response = {
            status: reply.statusCode,
            contentType: String(reply.getHeader('content-type') ?? 'application/json'),
            body: payload,
            ...(typeof location === 'string' ? { location } : {}),
          }
          if (!(await store.complete(claim.key, claim.revision, claim.fingerprint, response))) request.log.warn('idempotency key taken over before its answer was stored')
        } else {
          await store.abandon(claim.key, claim.revision)
        }
      } catch (err) {
        // The answer still goes out: the work is done. The key stays in flight until it is stale.
        request.log.warn({ error: err instanceof Error ? err.message : String(err) }, 'idempotency answer not stored')
      }
      return payload
    }

    /**
     * Keeps the key in flight (a retry meets 409) until `later` says what it holds: an answer to
     * store, or null to free it. Should the answer not be read in time, or the store not answer,
     * the key is left in flight until it is taken over as stale: freed, it would let a retry
     * create the task again.
     */
    async function settleLater(request: FastifyRequest, claim: Claim, later: Promise<StoredResponse | null>): Promise<void> {
      try {
        const response = await later
        if (response === null) return await store.abandon(claim.key, claim.revision)
        if (!(await store.complete(claim.key, claim.revision, claim.fingerprint, response))) request.log.warn('idempotency key taken over before its settled answer was stored')
      } catch (err) {
        request.log.warn({ error: err instanceof Error ? err.message : String(err) }, 'idempotency answer of a settled write not stored')
      }
    }

    /** Nothing is started here: `onSend` settles the key once the 503 is answered, so nothing is left running for a request answered otherwise. */
    function answerOnceSettled(request: FastifyRequest, err: unknown, answer: () => Promise<CreatedAnswer>): void {
      if (err instanceof AppendInDoubtError && claims.has(request)) inDoubt.set(request, { err, answer })
    }

    function answerOnceAllSettled(request: FastifyRequest, settled: Promise<unknown>, answer: () => Promise<CreatedAnswer>): void {
      if (claims.has(request)) finals.set(request, { settled, answer })
    }

    /** What a key holds once the writes in doubt of its request are settled. */
    async function finalAnswer({ settled, answer }: SettlingAnswer): Promise<StoredResponse> {
      await settled
      return storedAnswer(answer)
    }

    app.decorate('idempotent', { preHandler, onSend } satisfies IdempotencyHooks)
    app.decorate('answerOnceSettled', answerOnceSettled)
    app.decorate('answerOnceAllSettled', answerOnceAllSettled)
  },
  { name: 'idempotency' },
)

/** What the key of a write answered 503 holds once it is settled: its answer if stored; null (the key freed) if not, or if that is unknown (ADR 0046). */
async function settledAnswer({ err, answer }: InDoubt): Promise<StoredResponse | null> {
  // Never rejects: a settlement that could not be worked out is 'unknown'.
  return (await err.settled) === 'stored' ? storedAnswer(answer) : null
}

/** The answer of a write stored after its 503, read while NATS may still be slow rather than the key left in flight. */
async function storedAnswer(answer: () => Promise<CreatedAnswer>): Promise<StoredResponse> {
  const { status, body, location } = await whileUnreachable(answer, { forMs: SETTLED_ANSWER_MS })
  return { status, contentType: ANSWER_TYPE, body: JSON.stringify(body), ...(location ? { location } : {}) }
}

declare module 'fastify' {
  interface FastifyInstance {
    idempotent: IdempotencyHooks
    /**
     * For a handler whose write failed with `err`: when it is an append in doubt (answered 503,
     * maybe stored later), the request's Idempotency-Key stays claimed until it is settled, then
     * holds `answer()` if the write was stored, or is freed if it was not. Otherwise nothing changes.
     */
    answerOnceSettled: (request: FastifyRequest, err: unknown, answer: () => Promise<CreatedAnswer>) => void
    /**
     * For a handler that answers below 500 while some of its writes are in doubt (a batch with
     * a body answered 503, maybe stored later): the request's Idempotency-Key stays claimed until
     * `settled` (which never rejects) resolves, then holds `answer()`.
     */
    answerOnceAllSettled: (request: FastifyRequest, settled: Promise<unknown>, answer: () => Promise<CreatedAnswer>) => void
  }
}

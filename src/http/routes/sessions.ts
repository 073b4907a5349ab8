import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { createSessionFromBody, getSession, listSessionsPage } from '../../api/sessions.js'
import { principalOf } from '../plugins/auth.js'
import { errors } from '../../contract/common.js'
import { IdempotencyInFlight, IdempotencyKeyHeader, replayable } from '../../contract/idempotency.js'
import { CreateSessionBody, ListSessionsQuery, ListSessionsResponse, SessionParams, SessionResponse } from '../../contract/sessions.js'

const sessions: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/sessions',
    {
      onRequest: [app.authenticate, app.rateLimit('sessions')],
      schema: {
        summary: "List the caller's sessions, newest first",
        operationId: 'listSessions',
        tags: ['sessions'],
        querystring: ListSessionsQuery,
        response: { 200: ListSessionsResponse, ...errors(400, 401, 429) },
      },
    },
    async (request) => listSessionsPage(app.infra, principalOf(request).accountId, request.query),
  )

  app.get(
    '/sessions/:sessionId',
    {
      onRequest: [app.authenticate, app.rateLimit('sessions')],
      schema: {
        summary: 'One session: its company context, autonomy and what its runs learned',
        operationId: 'getSession',
        tags: ['sessions'],
        params: SessionParams,
        response: { 200: SessionResponse, ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => getSession(app.infra, principalOf(request).accountId, request.params.sessionId),
  )

  app.post(
    '/sessions',
    {
      onRequest: [app.authenticate, app.rateLimit('sessions')],
      ...app.idempotent,
      schema: {
        summary: 'Create a session (a workspace, usually one per company)',
        operationId: 'createSession',
        tags: ['sessions'],
        headers: IdempotencyKeyHeader,
        body: CreateSessionBody,
        response: { 201: replayable(SessionResponse), ...errors(400, 401, 422, 429), 409: IdempotencyInFlight },
      },
    },
    async (request, reply) => {
      const { accountId, keyId } = principalOf(request)
      return reply.code(201).send(await createSessionFromBody(app.infra, accountId, request.body, { correlationId: request.id, keyId }))
    },
  )
}

export default sessions

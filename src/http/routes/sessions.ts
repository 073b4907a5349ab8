import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { createSessionFromBody, getSession, listSessionsPage, updateSession } from '../../api/sessions.js'
import { issuerOf, principalOf } from '../plugins/auth.js'
import { answer, errors } from '../../contract/common.js'
import { IdempotencyInFlight, IdempotencyKeyHeader, replayable } from '../../contract/idempotency.js'
import { CreateSessionBody, ListSessionsQuery, ListSessionsResponse, SessionParams, SessionResponse, UpdateSessionBody } from '../../contract/sessions.js'

const sessions: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/sessions',
    {
      config: { rateLimitGroup: 'sessions' },
      schema: {
        summary: "List the caller's sessions, newest first",
        operationId: 'listSessions',
        description: "The caller's sessions, newest first, a page at a time.",
        tags: ['sessions'],
        querystring: ListSessionsQuery,
        response: { 200: answer(ListSessionsResponse, 'A page of sessions and where it is in the whole list'), ...errors(400, 401, 429) },
      },
    },
    async (request) => listSessionsPage(app.infra, principalOf(request).accountId, request.query),
  )

  app.get(
    '/sessions/:sessionId',
    {
      config: { rateLimitGroup: 'sessions' },
      schema: {
        summary: 'One session: its company context, autonomy and what its runs learned',
        operationId: 'getSession',
        description:
          "One session as stored: its name, the company context given at creation (companyName, companyUrl, industry, targetAudience), its autonomy and how many facts its runs have learned. Found as soon as POST /v1/sessions answered; another account's session is not found.",
        tags: ['sessions'],
        params: SessionParams,
        response: { 200: answer(SessionResponse, 'The session'), ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => getSession(app.infra, principalOf(request).accountId, request.params.sessionId),
  )

  app.patch(
    '/sessions/:sessionId',
    {
      config: { rateLimitGroup: 'sessions' },
      schema: {
        summary: "Change a session's autonomy",
        operationId: 'updateSession',
        description:
          "Changes how far agents may act on live platforms in this session (autonomy: draft-only, approval-required or autonomous); runs that start afterwards follow it, a running one keeps what it started with. Setting the autonomy the session already has records nothing. The company context stays as given at creation. Another account's session is not found.",
        tags: ['sessions'],
        params: SessionParams,
        body: UpdateSessionBody,
        response: { 200: answer(SessionResponse, 'The session as it now stands'), ...errors(400, 401, 404, 429) },
      },
    },
    async (request, reply) => {
      const { accountId } = principalOf(request)
      return updateSession(app.infra, accountId, request.params.sessionId, request.body, issuerOf(request, reply))
    },
  )

  app.post(
    '/sessions',
    {
      config: { rateLimitGroup: 'sessions' },
      ...app.idempotent,
      schema: {
        summary: 'Create a session (a workspace, usually one per company)',
        operationId: 'createSession',
        description:
          'A session is a workspace, usually one per company: the company context agents work from (name, site, industry, audience) and how far they may act on their own (autonomy). Send Idempotency-Key to make a retry safe.',
        tags: ['sessions'],
        headers: IdempotencyKeyHeader,
        body: CreateSessionBody,
        response: { 201: answer(replayable(SessionResponse), 'The session, created'), ...errors(400, 401, 422, 429), 409: IdempotencyInFlight },
      },
    },
    async (request, reply) => {
      const { accountId } = principalOf(request)
      return reply.code(201).send(await createSessionFromBody(app.infra, accountId, request.body, issuerOf(request, reply)))
    },
  )
}

export default sessions

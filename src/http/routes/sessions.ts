import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { listSessions } from '../../../projections/queries/sessions.js'
import type { SessionDoc } from '../../../projections/index.js'
import { createSession } from '../../commands/create-session/create-session.js'
import { principalOf } from '../plugins/auth.js'
import { errors, pageOf, paginationFor } from '../schemas/common.js'
import { CreateSessionBody, ListSessionsQuery, ListSessionsResponse, SessionResponse } from '../schemas/sessions.js'

export function sessionView(doc: SessionDoc) {
  return { id: doc._id, name: doc.name, companyName: doc.companyName, companyUrl: doc.companyUrl, createdAt: doc.createdAt }
}

const sessions: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/sessions', {
    onRequest: [app.authenticate, app.rateLimit('sessions')],
    schema: {
      summary: "List the caller's sessions, newest first",
      operationId: 'listSessions',
      tags: ['sessions'],
      querystring: ListSessionsQuery,
      response: { 200: ListSessionsResponse, ...errors(400, 401, 429) },
    },
  }, async (request) => {
    const { page, limit } = pageOf(request.query)
    const { items, total } = await listSessions(app.infra.readModels, principalOf(request).accountId, page, limit)
    return { sessions: items.map(sessionView), pagination: paginationFor(page, limit, total) }
  })

  app.post('/sessions', {
    onRequest: [app.authenticate, app.rateLimit('sessions')],
    schema: {
      summary: 'Create a session (a workspace, usually one per company)',
      operationId: 'createSession',
      tags: ['sessions'],
      body: CreateSessionBody,
      response: { 201: SessionResponse, ...errors(400, 401, 429) },
    },
  }, async (request, reply) => {
    const { accountId, keyId } = principalOf(request)
    const body = request.body
    const doc = await createSession(app.infra, accountId, {
      name: body.name,
      companyName: body.companyName ?? null,
      companyUrl: body.companyUrl ?? null,
      industry: body.industry ?? null,
      targetAudience: body.targetAudience ?? null,
    }, { correlationId: request.id, keyId })
    return reply.code(201).send({ session: sessionView(doc) })
  })
}

export default sessions

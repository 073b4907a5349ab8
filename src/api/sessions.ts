import { sessionDocFromHistory } from '../../projections/index.js'
import { listSessions } from '../../projections/queries/sessions.js'
import { changeSessionAutonomy } from '../commands/change-session-autonomy/change-session-autonomy.js'
import { createSession } from '../commands/create-session/create-session.js'
import type { Issuer } from '../commands/execute.js'
import { NotFoundError } from '../domain/errors.js'
import { DEFAULT_AUTONOMY } from '../domain/sessions/autonomy.js'
import { Session } from '../domain/sessions/session.js'
import type { AppContext } from '../app-context.js'
import { pageOf, paginationFor } from '../contract/common.js'
import type { CreateSessionBody, UpdateSessionBody } from '../contract/sessions.js'
import { documentOf, sessionView } from './views.js'

/**
 * The session operations of the v1 API, shared by REST (src/http) and MCP (src/mcp):
 * each takes the validated request and returns the response body.
 */
export async function listSessionsPage(infra: AppContext, accountId: string, query: { page?: number | undefined; limit?: number | undefined }) {
  const { page, limit } = pageOf(query)
  const { items, total } = await listSessions(infra.readModels, accountId, page, limit)
  return { sessions: items.map(sessionView), pagination: paginationFor(page, limit, total) }
}

export async function createSessionFromBody(infra: AppContext, accountId: string, body: CreateSessionBody, issuer: Issuer) {
  const { history } = await createSession(
    infra,
    accountId,
    {
      name: body.name,
      companyName: body.companyName ?? null,
      companyUrl: body.companyUrl ?? null,
      industry: body.industry ?? null,
      targetAudience: body.targetAudience ?? null,
      autonomy: body.autonomy ?? DEFAULT_AUTONOMY,
    },
    issuer,
  )
  return { session: sessionView(documentOf(sessionDocFromHistory(history), 'session')) }
}

/**
 * One session as its events leave it (one request; a session has at most a few hundred), like
 * GET /v1/tasks/{taskId}: found the moment its creation was answered. Another account's is not found.
 */
export async function getSession(infra: AppContext, accountId: string, sessionId: string) {
  infra.link.assertUp()
  const { events } = await infra.events.load(Session, { accountId, aggregateId: sessionId })
  const doc = sessionDocFromHistory(events)
  if (!doc) throw new NotFoundError('session not found')
  return { session: sessionView(doc) }
}

/**
 * Changes what can change of a session (its autonomy) and answers the session as its events
 * now leave it. Setting the autonomy it already has records nothing; another account's session
 * is not found. The new autonomy governs the write actions of runs that start afterwards.
 */
export async function updateSession(infra: AppContext, accountId: string, sessionId: string, body: UpdateSessionBody, issuer: Issuer) {
  await changeSessionAutonomy(infra, { accountId, sessionId }, body.autonomy, issuer)
  return getSession(infra, accountId, sessionId)
}

import { sessionDocFromHistory } from '../../projections/index.js'
import { listSessions } from '../../projections/queries/sessions.js'
import { createSession } from '../commands/create-session/create-session.js'
import type { Issuer } from '../commands/execute.js'
import { DEFAULT_AUTONOMY } from '../domain/sessions/autonomy.js'
import type { AppContext } from '../app-context.js'
import { pageOf, paginationFor } from '../contract/common.js'
import type { CreateSessionBody } from '../contract/sessions.js'
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

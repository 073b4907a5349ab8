import { sessionDocFromHistory, type SessionDoc } from '../../../projections/index.js'
import type { Autonomy } from '../../domain/sessions/autonomy.js'
import { decideChangeAutonomy, Session } from '../../domain/sessions/session.js'
import type { Infra } from '../../infra/context.js'
import { execute, type Issuer } from '../execute.js'

/** 404 for a session that is not the account's; setting the current autonomy again records nothing. */
export async function changeSessionAutonomy(infra: Infra, key: { accountId: string; sessionId: string }, autonomy: Autonomy, issuer: Issuer): Promise<SessionDoc> {
  const { history } = await execute(infra, Session, { accountId: key.accountId, aggregateId: key.sessionId }, (state) => decideChangeAutonomy({ autonomy }, state), issuer)
  const doc = sessionDocFromHistory(history)
  if (!doc) throw new Error('autonomy change left no session')
  return doc
}

import type { Autonomy } from '../../domain/sessions/autonomy.js'
import { decideChangeAutonomy, Session, type OpenSession } from '../../domain/sessions/session.js'
import type { CommandContext } from '../context.js'
import { execute, type Issuer } from '../execute.js'

/** 404 for a session that is not the account's; setting the current autonomy again records nothing. Answers the session's state. */
export async function changeSessionAutonomy(infra: CommandContext, key: { accountId: string; sessionId: string }, autonomy: Autonomy, issuer: Issuer): Promise<OpenSession> {
  const { state } = await execute(infra, Session, { accountId: key.accountId, aggregateId: key.sessionId }, (current) => decideChangeAutonomy({ autonomy }, current), issuer)
  if (state.status === 'absent') throw new Error('autonomy change left no session')
  return state
}

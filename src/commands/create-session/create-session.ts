import { randomUUID } from 'node:crypto'
import { decideCreateSession, Session, type CreateSession, type SessionEvent, type SessionState } from '../../domain/sessions/session.js'
import type { CommandContext } from '../context.js'
import { execute, type Executed, type Issuer } from '../execute.js'

/** Creates a session under a new id; answers its events and state (the caller makes the document of them). */
export async function createSession(infra: CommandContext, accountId: string, input: CreateSession, issuer: Issuer): Promise<Executed<SessionState, SessionEvent>> {
  const id = randomUUID()
  const executed = await execute(infra, Session, { accountId, aggregateId: id }, (state) => decideCreateSession(input, state), issuer, { isNew: true })
  if (executed.state.status === 'absent') throw new Error('session creation appended nothing')
  return executed
}

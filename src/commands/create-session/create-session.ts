import { randomUUID } from 'node:crypto'
import { decideCreateSession, Session, type CreateSession } from '../../domain/sessions/session.js'
import type { Infra } from '../../infra/context.js'
import { sessionDocFromHistory, type SessionDoc } from '../../../projections/index.js'
import { execute, type Issuer } from '../execute.js'

export async function createSession(infra: Infra, accountId: string, input: CreateSession, issuer: Issuer): Promise<SessionDoc> {
  const id = randomUUID()
  const { history } = await execute(infra, Session, { accountId, aggregateId: id }, (state) => decideCreateSession(input, state), issuer, { isNew: true })
  const doc = sessionDocFromHistory(history)
  if (!doc) throw new Error('session creation appended nothing')
  return doc
}

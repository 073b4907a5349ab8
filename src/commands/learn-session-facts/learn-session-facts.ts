import { decideLearnFacts, Session } from '../../domain/sessions/session.js'
import type { CommandContext } from '../context.js'
import { execute, type Issuer } from '../execute.js'

/** The delegated tasks of one supervisor often end together and learn into the same session. */
const ATTEMPTS = 10

/** Idempotent: a task's facts are recorded once however often this runs (see decideLearnFacts). */
export async function learnSessionFacts(infra: CommandContext, key: { accountId: string; sessionId: string }, taskId: string, facts: readonly string[], issuer: Issuer): Promise<number> {
  if (facts.length === 0) return 0
  const { appended } = await execute(infra, Session, { accountId: key.accountId, aggregateId: key.sessionId }, (state) => decideLearnFacts({ taskId, facts }, state), issuer, { maxAttempts: ATTEMPTS })
  return appended.length
}

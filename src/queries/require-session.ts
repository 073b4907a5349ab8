import { NotFoundError } from '../domain/errors.js'
import type { Infra } from '../infra/context.js'

/**
 * 404 unless the session is the account's. From the log, so a session created a moment
 * ago is found; and by its last event only, since sessions never close and their
 * history (learned facts) is not needed to know that they exist.
 */
export async function requireSession(infra: Infra, accountId: string, sessionId: string): Promise<void> {
  if ((await infra.events.version('session', { accountId, aggregateId: sessionId })) === 0) throw new NotFoundError('session not found')
}

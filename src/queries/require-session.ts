import { NotFoundError } from '../domain/errors.js'
import type { Infra } from '../infra/context.js'

const MAX_REMEMBERED = 10_000

/**
 * The sessions this process has seen exist. Sessions never close, so a session once found
 * stays found, and the hot path (every POST /v1/tasks names one) skips the log read.
 */
export class KnownSessions {
  private readonly known = new Set<string>()

  has(accountId: string, sessionId: string): boolean {
    return this.known.has(`${accountId}/${sessionId}`)
  }

  remember(accountId: string, sessionId: string): void {
    if (this.known.size >= MAX_REMEMBERED) this.known.clear()
    this.known.add(`${accountId}/${sessionId}`)
  }
}

/**
 * 404 unless the session is the account's. From the log, so a session created a moment
 * ago is found; and by its last event only, since sessions never close and their
 * history (learned facts) is not needed to know that they exist.
 */
export async function requireSession(infra: Infra & { readonly knownSessions: KnownSessions }, accountId: string, sessionId: string): Promise<void> {
  if (infra.knownSessions.has(accountId, sessionId)) return
  if ((await infra.events.version('session', { accountId, aggregateId: sessionId })) === 0) throw new NotFoundError('session not found')
  infra.knownSessions.remember(accountId, sessionId)
}

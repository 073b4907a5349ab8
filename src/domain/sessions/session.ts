import { ConflictError, NotFoundError } from '../errors.js'
import type { Aggregate, EventDraft } from '../message.js'

export interface CompanyProfile {
  readonly companyName: string | null
  readonly companyUrl: string | null
  readonly industry: string | null
  readonly targetAudience: string | null
}

export type SessionCreated = EventDraft<'SessionCreated', { name: string } & CompanyProfile>
export type SessionEvent = SessionCreated

export type SessionState =
  | { readonly status: 'absent' }
  | ({ readonly status: 'open'; readonly name: string } & CompanyProfile)

export const Session: Aggregate<SessionState, SessionEvent> = {
  category: 'session',
  initialState: { status: 'absent' },
  versions: { SessionCreated: 1 },
  evolve(_state, event) {
    switch (event.type) {
      case 'SessionCreated':
        return { status: 'open', ...event.data }
    }
  },
}

export type CreateSession = { readonly name: string } & CompanyProfile

/** Field bounds are enforced by the request schema; this guards the aggregate's own rules. */
export function decideCreateSession(command: CreateSession, state: SessionState): SessionEvent[] {
  if (state.status !== 'absent') throw new ConflictError('session already exists')
  return [{ type: 'SessionCreated', data: { ...command } }]
}

export function requireOpenSession(state: SessionState): Extract<SessionState, { status: 'open' }> {
  if (state.status === 'absent') throw new NotFoundError('session not found')
  return state
}

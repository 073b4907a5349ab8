import { ConflictError, NotFoundError } from '../errors.js'
import type { EventData } from '../events/common.js'
import type * as schemas from '../events/sessions.js'
import type { Aggregate, EventDraft } from '../message.js'
import { DEFAULT_AUTONOMY, type Autonomy } from './autonomy.js'

export interface CompanyProfile {
  readonly companyName: string | null
  readonly companyUrl: string | null
  readonly industry: string | null
  readonly targetAudience: string | null
}

/** A durable fact about the company that an agent run learned; later runs in the session receive it. */
export type LearnedFact = EventData<typeof schemas.SessionFactLearnedData>

// The data of each event is its TypeBox schema's (src/domain/events/sessions.ts).
/** `autonomy` is absent from sessions created before it existed: they have the default. */
export type SessionCreated = EventDraft<'SessionCreated', EventData<typeof schemas.SessionCreatedData>>
export type SessionAutonomyChanged = EventDraft<'SessionAutonomyChanged', EventData<typeof schemas.SessionAutonomyChangedData>>
export type SessionFactLearned = EventDraft<'SessionFactLearned', LearnedFact>
export type SessionEvent = SessionCreated | SessionAutonomyChanged | SessionFactLearned

export type OpenSession = { readonly status: 'open'; readonly name: string; readonly autonomy: Autonomy; readonly facts: readonly LearnedFact[] } & CompanyProfile
export type SessionState = { readonly status: 'absent' } | OpenSession

/** Beyond this many, a session stops learning: its context must stay small enough for every prompt. */
export const MAX_SESSION_FACTS = 200
export const MAX_FACT_LENGTH = 300

export const Session: Aggregate<SessionState, SessionEvent> = {
  category: 'session',
  initialState: { status: 'absent' },
  versions: { SessionCreated: 1, SessionAutonomyChanged: 1, SessionFactLearned: 1 },
  evolve(state, event) {
    switch (event.type) {
      case 'SessionCreated':
        return { status: 'open', ...event.data, autonomy: event.data.autonomy ?? DEFAULT_AUTONOMY, facts: [] }
      case 'SessionAutonomyChanged':
        return state.status === 'open' ? { ...state, autonomy: event.data.autonomy } : state
      case 'SessionFactLearned':
        return state.status === 'open' ? { ...state, facts: [...state.facts, event.data] } : state
    }
  },
}

export type CreateSession = { readonly name: string; readonly autonomy: Autonomy } & CompanyProfile

/** Field bounds are enforced by the request schema; this guards the aggregate's own rules. */
export function decideCreateSession(command: CreateSession, state: SessionState): SessionEvent[] {
  if (state.status !== 'absent') throw new ConflictError('session already exists')
  return [{ type: 'SessionCreated', data: { ...command } }]
}

/** Setting the autonomy a session already has records nothing. */
export function decideChangeAutonomy(command: { autonomy: Autonomy }, state: SessionState): SessionEvent[] {
  const session = requireOpenSession(state)
  if (session.autonomy === command.autonomy) return []
  return [{ type: 'SessionAutonomyChanged', data: { autonomy: command.autonomy, previous: session.autonomy } }]
}

/**
 * Records what a completed task learned, once: facts the session knows already (compared
 * without case and spacing), whichever task recorded them, and facts past the cap are
 * dropped. Asked again for the same task, it records only the facts still missing.
 */
export function decideLearnFacts(command: { taskId: string; facts: readonly string[] }, state: SessionState): SessionEvent[] {
  const session = requireOpenSession(state)
  const known = new Set(session.facts.map((known) => factKey(known.fact)))
  const events: SessionEvent[] = []
  for (const raw of command.facts) {
    const fact = raw.trim().replace(/\s+/g, ' ').slice(0, MAX_FACT_LENGTH)
    if (fact === '' || known.has(factKey(fact)) || session.facts.length + events.length >= MAX_SESSION_FACTS) continue
    known.add(factKey(fact))
    events.push({ type: 'SessionFactLearned', data: { fact, taskId: command.taskId } })
  }
  return events
}

const factKey = (fact: string): string =>
  fact
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\s.]+/g, ' ')
    .trim()

export function requireOpenSession(state: SessionState): OpenSession {
  if (state.status === 'absent') throw new NotFoundError('session not found')
  return state
}

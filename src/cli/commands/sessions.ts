import { sessionsProjection, type SessionDoc } from '../../../projections/index.js'
import { changeSessionAutonomy } from '../../commands/change-session-autonomy/change-session-autonomy.js'
import { operator } from '../../commands/execute.js'
import { InvalidInputError, NotFoundError } from '../../domain/errors.js'
import { AUTONOMY_LEVELS, isAutonomy, type Autonomy } from '../../domain/sessions/autonomy.js'
import { requireOpenSession, Session } from '../../domain/sessions/session.js'
import type { AppContext } from '../../app-context.js'
import { parse, print, required, unknownVerb, uuid, type OperatorAction } from '../io.js'

/** Checks the arguments first, so that a usage error needs no servers. */
export function sessions([verb, ...rest]: string[]): OperatorAction {
  const { values, positionals } = parse(rest, {})
  if (verb !== 'show' && verb !== 'autonomy') throw unknownVerb('sessions', verb, ['show', 'autonomy'])
  const sessionId = uuid(positionals[0], 'SESSION_ID')
  if (verb === 'show') return async (infra) => print(values.json, await showSession(infra, sessionId))
  const autonomy = autonomyOf(required(positionals[1], 'the autonomy'))
  return async (infra) => {
    const session = await changeSessionAutonomy(infra, { accountId: await ownerOf(infra, sessionId), sessionId }, autonomy, operator())
    print(values.json, { id: sessionId, name: session.name, autonomy })
  }
}

function autonomyOf(value: string): Autonomy {
  if (!isAutonomy(value)) throw new InvalidInputError(`autonomy: must be one of ${AUTONOMY_LEVELS.join(', ')} (got "${value}")`)
  return value
}

/** Operators know a session by its id; the account it belongs to is in the read model. */
async function ownerOf(infra: AppContext, sessionId: string): Promise<string> {
  const doc = await infra.readModels.collection<SessionDoc>(sessionsProjection).findOne({ _id: sessionId })
  if (!doc) throw new NotFoundError(`session ${sessionId} not found`)
  return doc.accountId
}

/** From the log: the session as agents see it, with everything it learned. */
async function showSession(infra: AppContext, sessionId: string) {
  const accountId = await ownerOf(infra, sessionId)
  const session = requireOpenSession((await infra.events.load(Session, { accountId, aggregateId: sessionId })).state)
  const { name, companyName, companyUrl, industry, targetAudience, autonomy, facts } = session
  return { id: sessionId, accountId, name, companyName, companyUrl, industry, targetAudience, autonomy, learnedFacts: facts.map((f) => f.fact) }
}

import t from 'tap'
import { ConflictError, NotFoundError } from '../../src/domain/errors.js'
import { decideCreateSession, requireOpenSession, Session, type CreateSession, type SessionEvent, type SessionState } from '../../src/domain/sessions/session.js'

const given = (...events: SessionEvent[]): SessionState => events.reduce(Session.evolve, Session.initialState)
const command: CreateSession = { name: 'Spring launch', companyName: 'Acme Rockets', companyUrl: 'https://acme.example', industry: 'Aerospace', targetAudience: 'Coyotes' }
const created: SessionEvent = { type: 'SessionCreated', data: command }
const whenCreate = (state: SessionState, cmd: CreateSession = command) => () => decideCreateSession(cmd, state)

t.test('creating an absent session appends SessionCreated carrying every field', async (t) => {
  t.same(whenCreate(given())(), [{ type: 'SessionCreated', data: { name: 'Spring launch', companyName: 'Acme Rockets', companyUrl: 'https://acme.example', industry: 'Aerospace', targetAudience: 'Coyotes' } }])
})

t.test('a session with only a name carries null company fields', async (t) => {
  const bare: CreateSession = { name: 'x', companyName: null, companyUrl: null, industry: null, targetAudience: null }
  t.same(whenCreate(given(), bare)(), [{ type: 'SessionCreated', data: bare }])
})

t.test('the event data is a copy, not the command object itself', async (t) => {
  const [event] = whenCreate(given())()
  t.not(event?.data, command)
})

t.test('creating a session that already exists is a conflict', async (t) => {
  t.throws(whenCreate(given(created)), ConflictError)
  t.throws(whenCreate(given(created)), { message: /session already exists/ })
})

t.test('evolve opens the session with every field of its creation', async (t) => {
  t.same(given(), { status: 'absent' })
  t.same(given(created), { status: 'open', ...command })
})

t.test('requiring an open session that is absent is not found', async (t) => {
  t.throws(() => requireOpenSession(given()), NotFoundError)
  t.throws(() => requireOpenSession(given()), { message: /session not found/ })
})

t.test('requiring an open session returns its state', async (t) => {
  t.same(requireOpenSession(given(created)), { status: 'open', ...command })
})

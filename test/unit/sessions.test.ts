import t from 'tap'
import { ConflictError, NotFoundError } from '../../src/domain/errors.js'
import {
  decideChangeAutonomy,
  decideCreateSession,
  decideLearnFacts,
  MAX_SESSION_FACTS,
  requireOpenSession,
  Session,
  type CreateSession,
  type SessionEvent,
  type SessionState,
} from '../../src/domain/sessions/session.js'

const given = (...events: SessionEvent[]): SessionState => events.reduce(Session.evolve, Session.initialState)
const command: CreateSession = { name: 'Spring launch', companyName: 'Acme Rockets', companyUrl: 'https://acme.example', industry: 'Aerospace', targetAudience: 'Coyotes', autonomy: 'draft-only' }
const created: SessionEvent = { type: 'SessionCreated', data: command }
const whenCreate =
  (state: SessionState, cmd: CreateSession = command) =>
  () =>
    decideCreateSession(cmd, state)
const learned = (fact: string, taskId = 't1'): SessionEvent => ({ type: 'SessionFactLearned', data: { fact, taskId } })

t.test('creating an absent session appends SessionCreated carrying every field', async (t) => {
  t.same(whenCreate(given())(), [
    {
      type: 'SessionCreated',
      data: { name: 'Spring launch', companyName: 'Acme Rockets', companyUrl: 'https://acme.example', industry: 'Aerospace', targetAudience: 'Coyotes', autonomy: 'draft-only' },
    },
  ])
})

t.test('a session with only a name carries null company fields', async (t) => {
  const bare: CreateSession = { name: 'x', companyName: null, companyUrl: null, industry: null, targetAudience: null, autonomy: 'approval-required' }
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

t.test('evolve opens the session with every field of its creation and nothing learned yet', async (t) => {
  t.same(given(), { status: 'absent' })
  t.same(given(created), { status: 'open', ...command, facts: [] })
})

t.test('a session created before autonomy existed requires approval', async (t) => {
  const { autonomy: _, ...old } = command
  t.equal(requireOpenSession(given({ type: 'SessionCreated', data: old })).autonomy, 'approval-required')
})

t.test('requiring an open session that is absent is not found', async (t) => {
  t.throws(() => requireOpenSession(given()), NotFoundError)
  t.throws(() => requireOpenSession(given()), { message: /session not found/ })
})

t.test('changing autonomy records the new and previous level; the same level records nothing', async (t) => {
  t.same(decideChangeAutonomy({ autonomy: 'autonomous' }, given(created)), [{ type: 'SessionAutonomyChanged', data: { autonomy: 'autonomous', previous: 'draft-only' } }])
  t.same(decideChangeAutonomy({ autonomy: 'draft-only' }, given(created)), [])
  t.equal(requireOpenSession(given(created, { type: 'SessionAutonomyChanged', data: { autonomy: 'autonomous', previous: 'draft-only' } })).autonomy, 'autonomous')
  t.throws(() => decideChangeAutonomy({ autonomy: 'autonomous' }, given()), NotFoundError)
})

t.test('a task’s facts are learned once, without facts the session already knows', async (t) => {
  const state = given(created, learned('Sells model rockets to hobbyists.', 't0'))
  const events = decideLearnFacts({ taskId: 't1', facts: ['  sells MODEL rockets to   hobbyists ', 'Ships only to North America', 'Ships only to North America.', ' '] }, state)
  t.same(events, [learned('Ships only to North America', 't1')], 'known, repeated and blank facts are dropped; spacing is folded')
  t.same(decideLearnFacts({ taskId: 't1', facts: ['Ships only to North America'] }, given(created, ...events)), [], 'a task whose facts were recorded adds none again')
  t.same(requireOpenSession(given(created, ...events)).facts, [{ fact: 'Ships only to North America', taskId: 't1' }])
})

t.test('a task asked again records only the facts still missing, in order', async (t) => {
  // Given: the session holds the first of t1's facts and one of t2's
  const facts = ['Sells model rockets', 'Ships only to North America', 'Has a loyalty program']
  const state = given(created, learned('Sells model rockets', 't1'), learned('Has a loyalty program', 't2'))
  // When / then
  t.same(decideLearnFacts({ taskId: 't1', facts }, state), [learned('Ships only to North America', 't1')])
  t.same(decideLearnFacts({ taskId: 't1', facts }, given(created, ...facts.map((fact) => learned(fact, 't1')))), [], 'all of them recorded: nothing')
})

t.test('a session stops learning at its cap', async (t) => {
  const full = given(created, ...Array.from({ length: MAX_SESSION_FACTS - 1 }, (_, i) => learned(`fact ${i}`, `t${i}`)))
  t.same(decideLearnFacts({ taskId: 'last', facts: ['one more', 'and another'] }, full), [learned('one more', 'last')])
})

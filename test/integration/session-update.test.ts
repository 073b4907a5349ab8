import { randomUUID } from 'node:crypto'
import t from 'tap'
import { Session } from '../../src/domain/sessions/session.js'
import { aCaller, aSessionBody, type Caller } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'

const servers = await startServers(t)
const service = await startTestService(t, servers, { roles: ['api', 'projector'] })

interface SessionBody {
  session: { id: string; autonomy: string; name: string }
}

async function aSession(caller: Caller): Promise<SessionBody['session']> {
  return (await caller.api.post<SessionBody>('/v1/sessions', aSessionBody())).body.session
}

const patch = (caller: Caller, sessionId: string, body: unknown) => caller.api.request<SessionBody & { error: string; code: string }>('PATCH', `/v1/sessions/${sessionId}`, body)

async function autonomyEvents(caller: Caller, sessionId: string): Promise<unknown[]> {
  const { events } = await service.infra.events.load(Session, { accountId: caller.account.id, aggregateId: sessionId })
  return events.filter((e) => e.type === 'SessionAutonomyChanged').map((e) => e.data)
}

t.test('given a session, when its owner PATCHes its autonomy, then 200 with the session as it now stands, GET agrees, and the log holds the change once', async (t) => {
  const caller = await aCaller(service.infra, service.url)
  const created = await aSession(caller)
  t.equal(created.autonomy, 'approval-required', 'the default')

  const changed = await patch(caller, created.id, { autonomy: 'draft-only' })
  t.equal(changed.status, 200)
  t.same(changed.body, { session: { ...created, autonomy: 'draft-only' } }, 'only the autonomy changed')
  t.same((await caller.api.get(`/v1/sessions/${created.id}`)).body, changed.body, 'GET /v1/sessions/{id} answers the same')

  const again = await patch(caller, created.id, { autonomy: 'draft-only' })
  t.equal(again.status, 200, 'setting it again is fine')
  t.same(await autonomyEvents(caller, created.id), [{ autonomy: 'draft-only', previous: 'approval-required' }], 'and recorded nothing more')
})

t.test("given another account's session or an unknown id, then 404 exactly alike, and nothing is recorded", async (t) => {
  const owner = await aCaller(service.infra, service.url)
  const stranger = await aCaller(service.infra, service.url)
  const session = await aSession(owner)
  const foreign = await patch(stranger, session.id, { autonomy: 'autonomous' })
  const unknown = await patch(stranger, randomUUID(), { autonomy: 'autonomous' })
  t.same([foreign.status, unknown.status], [404, 404])
  t.same(foreign.body, unknown.body, 'the same answer')
  t.same(foreign.body, { error: 'session not found', code: 'not_found' })
  t.same(await autonomyEvents(owner, session.id), [], "the owner's session is untouched")
})

t.test('given a bad body or id, then 400 naming the field', async (t) => {
  const caller = await aCaller(service.infra, service.url)
  const session = await aSession(caller)
  const cases: [string, string, unknown, RegExp][] = [
    ['an unknown autonomy', session.id, { autonomy: 'reckless' }, /^body\.autonomy: /],
    ['no autonomy', session.id, {}, /autonomy/],
    ['a field that cannot change', session.id, { autonomy: 'autonomous', name: 'Renamed' }, /name/],
    ['a malformed id', 'session-1', { autonomy: 'autonomous' }, /^params\.sessionId: /],
  ]
  for (const [what, id, body, error] of cases) {
    const res = await patch(caller, id, body)
    t.equal(res.status, 400, `${what}: 400`)
    t.match(res.body, { error, code: 'invalid_request' }, `${what}: names the field`)
  }
  t.same(await autonomyEvents(caller, session.id), [], 'nothing recorded')
})

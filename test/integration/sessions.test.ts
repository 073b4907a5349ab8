import t from 'tap'
import { aCaller, aSessionBody } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'

interface SessionView {
  id: string
  name: string
  companyName?: string | null
  companyUrl?: string | null
  industry?: string | null
  targetAudience?: string | null
  createdAt: string
}
interface SessionList {
  sessions: SessionView[]
  pagination: { page: number; limit: number; total: number; totalPages: number }
}

const servers = await startServers(t)
const service = await startTestService(t, servers)

t.test('a created session is listed at once, every time', async (t) => {
  const { api } = await aCaller(service.infra, service.url)
  for (let i = 0; i < 20; i++) {
    const created = await api.post<{ session: SessionView }>('/v1/sessions', aSessionBody({ name: `Session ${i}` }))
    t.equal(created.status, 201)
    const listed = await api.get<SessionList>('/v1/sessions?limit=1')
    t.equal(listed.body.sessions[0]?.id, created.body.session.id, `session ${i} is first in the list right after its 201`)
  }
  const created = await api.post<{ session: SessionView }>('/v1/sessions', aSessionBody())
  t.match(created.body.session, { name: 'Spring launch', companyName: 'Acme Rockets', companyUrl: 'https://acme.example' })
  t.match(created.body.session.createdAt, /^\d{4}-\d{2}-\d{2}T/)
  t.same(
    Object.keys(created.body.session).sort(),
    ['autonomy', 'companyName', 'companyUrl', 'createdAt', 'factsLearned', 'id', 'industry', 'name', 'targetAudience'],
    'the Session resource has the spec fields, autonomy (issue 6) and every other field it stores (issue 19)',
  )
  t.equal((created.body.session as { autonomy?: string }).autonomy, 'approval-required', 'approval is required unless the session says otherwise')
})

t.test('only name is required; absent company fields read back as null', async (t) => {
  const { api } = await aCaller(service.infra, service.url)
  const created = await api.post<{ session: SessionView }>('/v1/sessions', { name: 'x' })
  t.equal(created.status, 201)
  t.equal(created.body.session.companyName, null)
  t.equal(created.body.session.companyUrl, null)
  t.equal(created.body.session.industry, null)
  t.equal(created.body.session.targetAudience, null)
})

t.test('given a session created with every field, when read back by id and in the list, then every stored field is shown', async (t) => {
  const { api } = await aCaller(service.infra, service.url)
  const body = aSessionBody({ industry: 'Aerospace', targetAudience: 'Hobbyist rocketeers', autonomy: 'draft-only' })
  const created = await api.post<{ session: SessionView }>('/v1/sessions', body)
  t.equal(created.status, 201)
  const expected = {
    id: created.body.session.id,
    name: body.name,
    companyName: body.companyName,
    companyUrl: body.companyUrl,
    industry: 'Aerospace',
    targetAudience: 'Hobbyist rocketeers',
    autonomy: 'draft-only',
    factsLearned: 0,
    createdAt: created.body.session.createdAt,
  }
  t.same(created.body.session, expected, 'POST answers what it stored')

  const read = await api.get<{ session: SessionView }>(`/v1/sessions/${created.body.session.id}`)
  t.equal(read.status, 200, 'GET /v1/sessions/{sessionId} right after the 201')
  t.same(read.body, { session: expected }, 'GET answers the same session')
  t.match(read.headers.get('ratelimit-policy'), /^"sessions";/, 'in the sessions rate-limit group')
  const listed = await api.get<SessionList>('/v1/sessions')
  t.same(listed.body.sessions[0], expected, 'the list shows the same fields')
})

t.test('given a session of another account, an unknown id or a malformed one, when GET /v1/sessions/{sessionId}, then 404 or 400 naming the parameter', async (t) => {
  const owner = await aCaller(service.infra, service.url)
  const stranger = await aCaller(service.infra, service.url)
  const id = (await owner.api.post<{ session: SessionView }>('/v1/sessions', aSessionBody())).body.session.id
  for (const [what, res] of [
    ['foreign', await stranger.api.get(`/v1/sessions/${id}`)],
    ['unknown', await owner.api.get('/v1/sessions/00000000-0000-4000-8000-000000000000')],
  ] as const) {
    t.equal(res.status, 404, `${what}: 404`)
    t.same(res.body, { error: 'session not found', code: 'not_found' }, `${what}: { error, code }`)
  }
  const malformed = await owner.api.get('/v1/sessions/not-a-uuid')
  t.equal(malformed.status, 400)
  t.match(malformed.body, { error: /^params\.sessionId: /, code: 'invalid_request' })
})

t.test('every bound of POST /sessions is enforced and the error names the field', async (t) => {
  const { api } = await aCaller(service.infra, service.url)
  const cases: [string, unknown, RegExp][] = [
    ['missing name', { companyName: 'Acme' }, /^body\.name: is required/],
    ['empty name', { name: '' }, /^body\.name: /],
    ['name of 121', { name: 'n'.repeat(121) }, /^body\.name: /],
    ['companyName of 201', { name: 'x', companyName: 'c'.repeat(201) }, /^body\.companyName: /],
    ['companyUrl not a URI', { name: 'x', companyUrl: 'acme dot com' }, /^body\.companyUrl: /],
    ['companyUrl of 501', { name: 'x', companyUrl: `https://a.example/${'p'.repeat(490)}` }, /^body\.companyUrl: /],
    ['industry of 101', { name: 'x', industry: 'i'.repeat(101) }, /^body\.industry: /],
    ['targetAudience of 301', { name: 'x', targetAudience: 't'.repeat(301) }, /^body\.targetAudience: /],
    ['name of the wrong type', { name: 42 }, /^body\.name: must be string/],
    ['unknown field', { name: 'x', owner: 'me' }, /^body\.owner: is not a known field/],
    ['an array body', [{ name: 'x' }], /^body: must be object/],
  ]
  for (const [what, body, message] of cases) {
    const res = await api.post('/v1/sessions', body)
    t.equal(res.status, 400, `${what}: 400`)
    t.match(res.body, { error: message }, `${what}: names the field`)
    t.same(Object.keys(res.body).sort(), ['code', 'error'], `${what}: body is { error, code }`)
    t.equal((res.body as { code?: string }).code, 'invalid_request', `${what}: code`)
  }
  const atBounds = await api.post('/v1/sessions', {
    name: 'n'.repeat(120),
    companyName: 'c'.repeat(200),
    industry: 'i'.repeat(100),
    targetAudience: 't'.repeat(300),
    companyUrl: `https://a.example/${'p'.repeat(500 - 18)}`,
  })
  t.equal(atBounds.status, 201, 'every field at its maximum is accepted')
  const list = await api.get<SessionList>('/v1/sessions?limit=100')
  t.equal(list.body.pagination.total, 1, 'no rejected request left a session behind')
})

t.test('pagination: defaults, bounds, order and totals', async (t) => {
  const { api } = await aCaller(service.infra, service.url)
  const ids: string[] = []
  for (let i = 0; i < 7; i++) ids.push((await api.post<{ session: SessionView }>('/v1/sessions', { name: `s${i}` })).body.session.id)
  const newestFirst = [...ids].reverse()

  const all = await api.get<SessionList>('/v1/sessions')
  t.same(all.body.pagination, { page: 1, limit: 25, total: 7, totalPages: 1 }, 'defaults page=1 limit=25')
  t.same(
    all.body.sessions.map((s) => s.id),
    newestFirst,
    'newest first',
  )

  const pages = [1, 2, 3, 4].map((page) => api.get<SessionList>(`/v1/sessions?page=${page}&limit=2`))
  const results = await Promise.all(pages)
  t.same(
    results.map((r) => r.body.sessions.map((s) => s.id)),
    [newestFirst.slice(0, 2), newestFirst.slice(2, 4), newestFirst.slice(4, 6), newestFirst.slice(6)],
  )
  t.same(results[0]?.body.pagination, { page: 1, limit: 2, total: 7, totalPages: 4 })
  const beyond = await api.get<SessionList>('/v1/sessions?page=9&limit=2')
  t.same(beyond.body.sessions, [], 'a page past the end is empty, not an error')

  for (const query of ['page=0', 'limit=0', 'limit=101', 'page=abc', 'limit=2.5', 'limit=1e1', 'sort=name']) {
    const res = await api.get(`/v1/sessions?${query}`)
    t.equal(res.status, 400, `${query} is a 400`)
    t.match(res.body, { error: /^query\.(page|limit|sort): / }, `${query} names the parameter`)
  }
  t.equal((await api.get<SessionList>('/v1/sessions?limit=100')).status, 200, 'limit=100 is allowed')
})

t.test('two accounts never see each other’s sessions', async (t) => {
  const alice = await aCaller(service.infra, service.url)
  const bob = await aCaller(service.infra, service.url)
  await alice.api.post('/v1/sessions', { name: 'alice only' })
  await bob.api.post('/v1/sessions', { name: 'bob one' })
  await bob.api.post('/v1/sessions', { name: 'bob two' })
  const aliceList = await alice.api.get<SessionList>('/v1/sessions')
  const bobList = await bob.api.get<SessionList>('/v1/sessions')
  t.same(
    aliceList.body.sessions.map((s) => s.name),
    ['alice only'],
  )
  t.same(
    bobList.body.sessions.map((s) => s.name),
    ['bob two', 'bob one'],
  )
  t.equal(bobList.body.pagination.total, 2)
})

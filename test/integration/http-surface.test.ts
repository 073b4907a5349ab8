import t, { type Test } from 'tap'
import { ApiClient, type ApiResponse } from '../helpers/http.js'
import { aCaller } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'

interface Subspecialty { id: string; name: string; description: string }
interface AgentView { type: string; name: string; description: string; isSupervisor: boolean; subspecialties: Subspecialty[] }
interface SessionList { sessions: unknown[]; pagination: { total: number } }

const SPEC_AGENT_TYPES = [
  'growth-marketer', 'organic-social', 'paid-media', 'seo', 'email-marketing',
  'creative', 'web-developer', 'cro', 'influencer-marketing', 'demand-gen',
]

const servers = await startServers(t)
const service = await startTestService(t, servers)
const anonymous = new ApiClient(service.url)

/** A request with a body sent exactly as given, not as JSON.stringify would write it. */
async function rawPost(api: ApiClient, path: string, body: string, contentType: string): Promise<ApiResponse<Record<string, unknown>>> {
  const headers: Record<string, string> = { 'content-type': contentType }
  if (api.key) headers.authorization = `Bearer ${api.key}`
  const response = await fetch(`${api.baseUrl}${path}`, { method: 'POST', headers, body })
  const text = await response.text()
  return { status: response.status, body: (text ? JSON.parse(text) : null) as Record<string, unknown>, headers: response.headers }
}

function isErrorBody(t: Test, res: ApiResponse<unknown>, what: string): void {
  t.match(res.headers.get('content-type'), /^application\/json/, `${what}: JSON`)
  const body = res.body as Record<string, unknown> | null
  t.same(Object.keys(body ?? {}), ['error'], `${what}: the body is exactly { error }`)
  t.type(body?.error, 'string', `${what}: error is a string`)
  t.ok(body?.error, `${what}: error is not empty`)
}

t.test('given a caller, when GET /v1/agents, then it lists the ten spec agents, growth-marketer the only supervisor', async (t) => {
  const { api } = await aCaller(service.infra, service.url)
  const res = await api.get<{ agents: AgentView[] }>('/v1/agents')
  t.equal(res.status, 200)
  t.same(Object.keys(res.body), ['agents'], 'the body is { agents }')
  const agents = res.body.agents
  t.equal(agents.length, 10, 'exactly ten agents')
  t.same(agents.map((a) => a.type).sort(), [...SPEC_AGENT_TYPES].sort(), 'their types are exactly the spec’s ten')
  t.same(agents.filter((a) => a.isSupervisor).map((a) => a.type), ['growth-marketer'], 'only growth-marketer is a supervisor')
  for (const agent of agents) {
    t.type(agent.isSupervisor, 'boolean', `${agent.type}: isSupervisor is a boolean`)
    t.ok(typeof agent.name === 'string' && agent.name.trim(), `${agent.type}: has a name`)
    t.ok(typeof agent.description === 'string' && agent.description.trim(), `${agent.type}: has a description`)
    t.ok(agent.subspecialties.length >= 3, `${agent.type}: at least 3 subspecialties (has ${agent.subspecialties.length})`)
    for (const sub of agent.subspecialties) {
      const filled = [sub.id, sub.name, sub.description].every((v) => typeof v === 'string' && v.trim().length > 0)
      t.ok(filled, `${agent.type}/${sub.id}: non-empty id, name and description`)
    }
    const ids = agent.subspecialties.map((s) => s.id)
    t.equal(new Set(ids).size, ids.length, `${agent.type}: subspecialty ids are unique`)
  }
})

t.test('given routes that do not exist, when called, then 404 with exactly { error }', async (t) => {
  const { api } = await aCaller(service.infra, service.url)
  const cases: [string, string, ApiClient][] = [
    ['GET', '/v1/nope', api],
    ['DELETE', '/v1/sessions', api],
    ['GET', '/nope', api],
    ['GET', '/v1/nope', anonymous],
  ]
  for (const [method, path, client] of cases) {
    const what = `${method} ${path}${client.key ? '' : ' without a key'}`
    const res = await client.request<Record<string, unknown>>(method, path)
    t.equal(res.status, 404, `${what}: 404`)
    isErrorBody(t, res, what)
  }
})

t.test('given bodies the server cannot take, when POSTed to /v1/sessions, then 415, 400 or 413 and no session is made', async (t) => {
  const { api } = await aCaller(service.infra, service.url)
  const good = JSON.stringify({ name: 'would be valid JSON' })

  for (const contentType of ['text/plain', 'application/x-www-form-urlencoded']) {
    const res = await rawPost(api, '/v1/sessions', good, contentType)
    t.equal(res.status, 415, `${contentType}: 415 Unsupported Media Type (got ${res.status} ${JSON.stringify(res.body)})`)
    isErrorBody(t, res, contentType)
  }

  const malformed = await rawPost(api, '/v1/sessions', '{"name": "x",', 'application/json')
  t.equal(malformed.status, 400, 'malformed JSON: 400')
  isErrorBody(t, malformed, 'malformed JSON')

  const big = JSON.stringify({ name: 'big', targetAudience: 'a'.repeat(64 * 1024) })
  const tooLarge = await rawPost(api, '/v1/sessions', big, 'application/json')
  t.equal(tooLarge.status, 413, 'a body over 64 KiB: 413')
  isErrorBody(t, tooLarge, 'over-large body')

  const list = await api.get<SessionList>('/v1/sessions')
  t.equal(list.status, 200)
  t.same(list.body.sessions, [], 'no rejected body created a session')
  t.equal(list.body.pagination.total, 0)

  const control = await rawPost(api, '/v1/sessions', good, 'application/json; charset=utf-8')
  t.equal(control.status, 201, 'the same body as application/json is accepted')
})

t.test('given running dependencies, when probed, then /healthz is ok and /readyz is ready, no key needed', async (t) => {
  const health = await anonymous.get('/healthz')
  t.equal(health.status, 200)
  t.same(health.body, { status: 'ok' })
  const ready = await anonymous.get('/readyz')
  t.equal(ready.status, 200)
  t.same(ready.body, { status: 'ready' })
})

t.test('given MongoDB stops, when probed, then /readyz is 503 naming MongoDB while /healthz stays 200', async (t) => {
  const own = await startServers(t)
  const ownService = await startTestService(t, own)
  const probe = new ApiClient(ownService.url)
  t.equal((await probe.get('/readyz')).status, 200, 'ready before MongoDB stops')

  await own.mongo.stop()

  const ready = await probe.get<{ error?: string }>('/readyz')
  t.equal(ready.status, 503, '/readyz: 503')
  isErrorBody(t, ready, '/readyz')
  t.match(ready.body.error, /MongoDB/, 'the error names MongoDB')
  const health = await probe.get('/healthz')
  t.equal(health.status, 200, '/healthz: still 200')
  t.same(health.body, { status: 'ok' })
})

import t from 'tap'
import { startService } from '../../src/service.js'
import { ApiClient, type ApiResponse } from '../helpers/http.js'
import { aCaller } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { startTestService, testConfig, testLog } from '../helpers/service.js'

const SPEC_LIMITS = { RATE_LIMIT_TASKS_CREATE_PER_MIN: '20', RATE_LIMIT_TASKS_READ_PER_MIN: '120', RATE_LIMIT_SESSIONS_PER_MIN: '60', RATE_LIMIT_META_PER_MIN: '60' }

const servers = await startServers(t)
const service = await startTestService(t, servers, { roles: ['api', 'projector'], env: SPEC_LIMITS })

function statuses(responses: ApiResponse[]): Record<number, number> {
  const counts: Record<number, number> = {}
  for (const r of responses) counts[r.status] = (counts[r.status] ?? 0) + 1
  return counts
}

t.test('from rest, 20 + 5 rapid POST /v1/tasks: 20 admitted, 5 refused with a Retry-After that holds', async (t) => {
  const { api } = await aCaller(service.infra, service.url)
  const sessionId = (await api.post<{ session: { id: string } }>('/v1/sessions', { name: 'limits' })).body.session.id
  const started = Date.now()
  const responses: ApiResponse[] = []
  for (let i = 0; i < 25; i++) responses.push(await api.post('/v1/tasks', { sessionId, instruction: `Limited task ${i}` }))
  const elapsed = Date.now() - started
  const refilled = Math.floor(elapsed / 3000)
  const admitted = responses.filter((r) => r.status === 201).length
  t.ok(admitted >= 20 && admitted <= 20 + refilled, `${admitted} admitted in ${elapsed} ms (20 + up to ${refilled} refilled)`)
  t.same(
    responses.slice(0, 20).map((r) => r.status),
    Array(20).fill(201),
    'the burst of 20 from rest is admitted',
  )

  const refused = responses.filter((r) => r.status === 429)
  t.equal(refused.length, 25 - admitted)
  for (const r of refused) {
    t.match(r.body, { error: /rate limit exceeded/ })
    t.match(r.headers.get('retry-after'), /^[1-9]\d*$/, 'Retry-After is whole seconds')
    t.equal(r.headers.get('ratelimit-policy'), '"tasks.create";q=20;w=60')
    t.match(r.headers.get('ratelimit'), /^"tasks\.create";r=0;t=\d+$/)
  }
  t.match(responses[0]?.headers.get('ratelimit'), /^"tasks\.create";r=19;t=3$/, 'a 201 says what remains')

  const last = refused.at(-1)!
  const retryAfter = Number(last.headers.get('retry-after'))
  t.ok(retryAfter <= 3, 'one token refills every 3 s')
  await new Promise((r) => setTimeout(r, retryAfter * 1000))
  const after = await api.post('/v1/tasks', { sessionId, instruction: 'After waiting Retry-After' })
  t.equal(after.status, 201, `admitted after waiting Retry-After (${retryAfter} s)`)
})

t.test('every limited route spends from the group docs/rate-limits.md names for it, whatever it answers', async (t) => {
  const { api } = await aCaller(service.infra, service.url)
  const id = '00000000-0000-4000-8000-000000000000'
  const routes: [method: string, path: string, group: string][] = [
    ['POST', '/v1/tasks', 'tasks.create'],
    ['POST', `/v1/tasks/${id}/cancel`, 'tasks.create'],
    ['POST', `/v1/actions/${id}/approve`, 'tasks.create'],
    ['POST', `/v1/actions/${id}/reject`, 'tasks.create'],
    ['GET', '/v1/tasks', 'tasks.read'],
    ['GET', `/v1/tasks/${id}`, 'tasks.read'],
    ['GET', `/v1/tasks/${id}/actions`, 'tasks.read'],
    ['GET', `/v1/tasks/${id}/events`, 'tasks.read'],
    ['GET', '/v1/approvals', 'tasks.read'],
    ['GET', '/v1/sessions', 'sessions'],
    ['POST', '/v1/sessions', 'sessions'],
    ['GET', `/v1/sessions/${id}`, 'sessions'],
    ['GET', '/v1/agents', 'meta'],
    ['GET', '/v1/me', 'meta'],
    ['POST', '/v1/webhooks', 'webhooks'],
    ['GET', '/v1/webhooks', 'webhooks'],
    ['DELETE', `/v1/webhooks/${id}`, 'webhooks'],
    ['GET', `/v1/webhooks/${id}/deliveries`, 'webhooks'],
  ]
  for (const [method, path, group] of routes) {
    const res = await api.request(method, path, method === 'POST' && !path.includes('/cancel') ? {} : undefined)
    t.match(res.headers.get('ratelimit-policy'), new RegExp(`^"${group.replace('.', '\\.')}";q=\\d+;w=60$`), `${method} ${path} (${res.status}): ${group}`)
  }
})

t.test('GET /v1/tasks and GET /v1/tasks/{id} share one quota; other groups are separate', async (t) => {
  const limited = await startTestService(t, servers, { roles: ['api'], env: { RATE_LIMIT_TASKS_READ_PER_MIN: '10', RATE_LIMIT_META_PER_MIN: '3' } })
  const { api } = await aCaller(limited.infra, limited.url)
  const reads = [...Array(5)].map(() => api.get('/v1/tasks'))
  const gets = [...Array(5)].map(() => api.get('/v1/tasks/00000000-0000-4000-8000-000000000000'))
  const first = await Promise.all([...reads, ...gets])
  t.same(statuses(first), { 200: 5, 404: 5 }, 'ten reads admitted (404s count too)')
  t.equal((await api.get('/v1/tasks')).status, 429, 'the eleventh read of either kind is refused')
  t.equal((await api.get('/v1/agents')).status, 200, 'the meta group has its own quota')
  t.equal((await api.get('/v1/sessions')).status, 200, 'so does the sessions group')
})

t.test('two API processes on the same NATS admit no more than one limit together', async (t) => {
  const env = { RATE_LIMIT_META_PER_MIN: '10' }
  const one = await startTestService(t, servers, { roles: ['api'], env })
  const two = await startService(testConfig(servers, env), testLog(), new Set(['api'] as const))
  t.teardown(() => two.stop())
  const caller = await aCaller(one.infra, one.url)
  const clients = [caller.api, new ApiClient(two.url!, caller.key.key)]
  const started = Date.now()
  const responses = await Promise.all([...Array(30)].map((_, i) => clients[i % 2]!.get('/v1/agents')))
  const refilled = Math.floor((Date.now() - started) / 6000)
  const admitted = responses.filter((r) => r.status === 200).length
  t.ok(admitted >= 10 && admitted <= 10 + refilled, `${admitted} of 30 admitted across both processes (limit 10)`)
  t.same(statuses(responses), { 200: admitted, 429: 30 - admitted }, `only 200 and 429: ${JSON.stringify(responses.filter((r) => r.status !== 200 && r.status !== 429).map((r) => r.body))}`)
})

t.test('one account at its limit does not affect another', async (t) => {
  const limited = await startTestService(t, servers, { roles: ['api'], env: { RATE_LIMIT_META_PER_MIN: '5' } })
  const noisy = await aCaller(limited.infra, limited.url)
  const quiet = await aCaller(limited.infra, limited.url)
  const noisyResponses = await Promise.all([...Array(8)].map(() => noisy.api.get('/v1/me')))
  t.same(statuses(noisyResponses), { 200: 5, 429: 3 })
  t.equal((await quiet.api.get('/v1/me')).status, 200)
  t.match((await quiet.api.get('/v1/me')).headers.get('ratelimit'), /^"meta";r=3;/)
})

t.test('GET /v1/openapi.json is limited per client address, without a key', async (t) => {
  const limited = await startTestService(t, servers, { roles: ['api'], env: { RATE_LIMIT_OPENAPI_PER_MIN: '4' } })
  const anonymous = new ApiClient(limited.url)
  const responses = await Promise.all([...Array(6)].map(() => anonymous.get('/v1/openapi.json')))
  t.same(statuses(responses), { 200: 4, 429: 2 })
  t.equal(responses.find((r) => r.status === 429)?.headers.get('ratelimit-policy'), '"openapi";q=4;w=60')
})

t.test('unauthenticated requests do not spend an account’s quota', async (t) => {
  const limited = await startTestService(t, servers, { roles: ['api'], env: { RATE_LIMIT_META_PER_MIN: '2' } })
  const caller = await aCaller(limited.infra, limited.url)
  const wrong = caller.api.withKey(`mats_${'x'.repeat(43)}`)
  for (let i = 0; i < 5; i++) t.equal((await wrong.get('/v1/agents')).status, 401)
  t.same(statuses(await Promise.all([caller.api.get('/v1/agents'), caller.api.get('/v1/agents')])), { 200: 2 })
})

t.test('when NATS cannot be reached, each process keeps limiting on its own', async (t) => {
  const own = await startServers(t)
  const limited = await startTestService(t, own, { roles: ['api'], env: { RATE_LIMIT_META_PER_MIN: '5' } })
  const caller = await aCaller(limited.infra, limited.url)
  t.equal((await caller.api.get('/v1/agents')).status, 200, 'shared store in use')
  await own.nats.stop()
  const responses: ApiResponse[] = []
  for (let i = 0; i < 7; i++) responses.push(await caller.api.get('/v1/agents'))
  t.same(
    responses.map((r) => r.status),
    [200, 200, 200, 200, 200, 429, 429],
    'a fresh per-process quota of 5, then 429',
  )
  t.match(responses[5]?.headers.get('retry-after'), /^[1-9]\d*$/)
})

t.test('given the openapi group, when /v1/docs, its static files and the document are fetched, then they spend one quota per client address', async (t) => {
  // Servers of its own: the quota of 127.0.0.1 is shared state the test above spends.
  const limited = await startTestService(t, await startServers(t), { roles: ['api'], env: { RATE_LIMIT_OPENAPI_PER_MIN: '4' } })
  const anonymous = new ApiClient(limited.url)
  const paths = ['/v1/docs/', '/v1/docs/static/swagger-ui.css', '/v1/docs/json', '/v1/openapi.json', '/v1/docs/static/swagger-ui-bundle.js']
  const responses: Response[] = []
  for (const path of paths) responses.push(await fetch(`${limited.url}${path}`))
  t.same(
    responses.map((r) => r.status),
    [200, 200, 200, 200, 429],
    'four admitted, whichever of them, then 429',
  )
  for (const [i, res] of responses.entries()) t.equal(res.headers.get('ratelimit-policy'), '"openapi";q=4;w=60', `${paths[i]}: in the openapi group`)
  const refused = responses.at(-1)
  t.match(refused?.headers.get('retry-after'), /^[1-9]\d*$/)
  t.match(await refused?.json(), { code: 'rate_limited' })
  t.equal((await anonymous.get('/healthz')).status, 200, '/healthz is not limited')
})

t.test('given a trusted proxy, when GET /v1/openapi.json comes from clients behind it, then an IPv6 /64 is one client', async (t) => {
  const limited = await startTestService(t, servers, { roles: ['api'], env: { RATE_LIMIT_OPENAPI_PER_MIN: '2', TRUST_PROXY: '127.0.0.1' } })
  const from = (address: string) => fetch(`${limited.url}/v1/openapi.json`, { headers: { 'x-forwarded-for': address } }).then((r) => r.status)
  t.same([await from('2001:db8::1'), await from('2001:db8::2'), await from('2001:db8::3')], [200, 200, 429], 'one /64')
  t.equal(await from('2001:db8:0:1::1'), 200, 'another /64')
})

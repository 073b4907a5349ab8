import { Kvm } from '@nats-io/kv'
import { connect } from '@nats-io/transport-node'
import { jetstream } from '@nats-io/jetstream'
import t from 'tap'
import { revokeApiKey } from '../../src/commands/revoke-api-key/revoke-api-key.js'
import { operator } from '../../src/commands/execute.js'
import { ensureConsoleBuilt, signIn } from '../helpers/console.js'
import { honouringRetryAfter } from '../helpers/retry-after.js'
import { openSse } from '../helpers/sse.js'
import { aCaller, aSessionBody } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { connectTestInfra, startTestService } from '../helpers/service.js'
import { until } from '../helpers/wait.js'

ensureConsoleBuilt()
const servers = await startServers(t)
// X-Forwarded-* from loopback are believed: each test names its own client address, and one says https.
const service = await startTestService(t, servers, { roles: ['api'], env: { TRUST_PROXY: 'loopback' } })
const ops = await connectTestInfra(t, servers)
let nextAddress = 1
const anAddress = () => `203.0.113.${nextAddress++}`

async function call(path: string, init: { method?: string; cookie?: string; headers?: Record<string, string>; body?: unknown } = {}) {
  const headers: Record<string, string> = { 'x-forwarded-for': anAddress(), ...(init.cookie ? { cookie: init.cookie } : {}), ...init.headers }
  if (init.body !== undefined) headers['content-type'] = 'application/json'
  const send = () => fetch(`${service.url}${path}`, { method: init.method ?? 'GET', headers, ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }) })
  const response = await honouringRetryAfter(`${init.method ?? 'GET'} ${path}`, send)
  const text = await response.text()
  return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : null) as Record<string, unknown> }
}

t.test('given a valid API key pasted into the sign-in, then an HttpOnly SameSite=Strict cookie (not Secure over http) reaches the API without the key', async (t) => {
  const caller = await aCaller(ops, service.url)
  const session = await signIn(service.url, caller.key.key)
  t.equal(session.status, 201)
  t.match(session.setCookie, /^mats_console=mcs_[\w-]{43}; Path=\/; HttpOnly; SameSite=Strict$/, 'no Secure over plain http')
  t.notMatch(JSON.stringify(session.body), caller.key.key, 'the key is not echoed')
  t.same(Object.keys(session.body).sort(), ['accountId', 'csrfToken', 'idleTimeoutMs', 'keyId'])
  t.equal(session.body.accountId, caller.account.id)

  const me = await call('/v1/me', { cookie: session.cookie })
  t.equal(me.status, 200, 'GET /v1/me with the cookie alone')
  t.equal((me.body.key as Record<string, unknown> | undefined)?.id, caller.key.id, 'as the key it was signed in with')
  const view = await call('/console/api/session', { cookie: session.cookie })
  t.equal(view.status, 200)
  t.equal(view.body.csrfToken, session.csrfToken, 'a reloaded page gets its CSRF token back')
  t.equal(view.headers.get('cache-control'), 'no-store')
})

t.test('given https at the proxy, then the cookie is __Host- prefixed and Secure', async (t) => {
  const caller = await aCaller(ops, service.url)
  const https = { origin: 'https://console.example', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'console.example' }
  const session = await signIn(service.url, caller.key.key, https)
  t.equal(session.status, 201)
  t.match(session.setCookie, /^__Host-mats_console=mcs_[\w-]{43}; Path=\/; HttpOnly; SameSite=Strict; Secure$/)
  t.equal((await call('/v1/agents', { cookie: session.cookie, headers: https })).status, 200)
  t.equal((await call('/v1/agents', { cookie: session.cookie })).status, 401, 'the __Host- cookie is not read over plain http')
})

t.test('given a sign-in from another origin or without Origin, then it is refused 403 csrf_failed and no cookie is set', async (t) => {
  const caller = await aCaller(ops, service.url)
  for (const headers of [{ origin: 'https://evil.example' }, {}, { origin: 'null' }]) {
    const refused = await signIn(service.url, caller.key.key, headers)
    t.equal(refused.status, 403, JSON.stringify(headers))
    t.equal(refused.body.code, 'csrf_failed')
    t.equal(refused.setCookie, null)
  }
})

t.test('given a cookie session, when it writes, then it needs its CSRF token and a same-origin Origin; reads need neither', async (t) => {
  const caller = await aCaller(ops, service.url)
  const { cookie, csrfToken } = await signIn(service.url, caller.key.key)
  const body = aSessionBody()
  const origin = service.url
  t.equal((await call('/v1/sessions', { cookie })).status, 200, 'a read with the cookie alone')
  const noToken = await call('/v1/sessions', { method: 'POST', cookie, body, headers: { origin } })
  t.equal(noToken.status, 403, 'no token')
  t.equal(noToken.body.code, 'csrf_failed')
  t.match(noToken.body.error, /x-csrf-token/)
  t.equal((await call('/v1/sessions', { method: 'POST', cookie, body, headers: { origin, 'x-csrf-token': 'x'.repeat(43) } })).status, 403, 'a wrong token')
  const otherOrigin = await call('/v1/sessions', { method: 'POST', cookie, body, headers: { origin: 'https://evil.example', 'x-csrf-token': csrfToken } })
  t.equal(otherOrigin.status, 403, 'another origin')
  t.match(otherOrigin.body.error, /Origin/)
  t.equal((await call('/v1/sessions', { method: 'POST', cookie, body, headers: { 'x-csrf-token': csrfToken } })).status, 403, 'no Origin')
  const created = await call('/v1/sessions', { method: 'POST', cookie, body, headers: { origin, 'x-csrf-token': csrfToken } })
  t.equal(created.status, 201, 'token and origin: written')
  t.equal((await caller.api.post('/v1/sessions', body)).status, 201, 'a bearer key needs no token')
})

t.test('given a signed-in console, when its key is revoked, then the session is refused within 5 s and stays ended', async (t) => {
  const caller = await aCaller(ops, service.url)
  const { cookie } = await signIn(service.url, caller.key.key)
  t.equal((await call('/v1/agents', { cookie })).status, 200)
  const revokedAt = Date.now()
  await revokeApiKey(ops, { keyId: caller.key.id }, operator())
  const refused = await until('the session refused', async () => (await call('/v1/agents', { cookie })).status === 401 && Date.now(), 10_000)
  t.ok(refused - revokedAt <= 5000, `refused ${refused - revokedAt} ms after the revocation`)
  const view = await call('/console/api/session', { cookie })
  t.equal(view.status, 401)
  t.match(view.headers.get('set-cookie'), /Max-Age=0/, 'the browser is told to drop the cookie')
})

t.test('given a signed-in console, when it signs out, then the cookie is cleared and no longer works', async (t) => {
  const caller = await aCaller(ops, service.url)
  const { cookie, csrfToken } = await signIn(service.url, caller.key.key)
  t.equal((await call('/console/api/session', { method: 'DELETE', cookie, headers: { origin: service.url } })).status, 403, 'sign-out needs the token too')
  const out = await call('/console/api/session', { method: 'DELETE', cookie, headers: { origin: service.url, 'x-csrf-token': csrfToken } })
  t.equal(out.status, 204)
  t.match(out.headers.get('set-cookie'), /^mats_console=; Path=\/; HttpOnly; SameSite=Strict; Max-Age=0$/)
  t.equal((await call('/v1/agents', { cookie })).status, 401, 'the old cookie is refused')
})

t.test('given a made-up or malformed cookie, then /v1 answers 401 like a bad key', async (t) => {
  for (const cookie of [`mats_console=mcs_${'A'.repeat(43)}`, 'mats_console=nonsense']) {
    const res = await call('/v1/agents', { cookie })
    t.equal(res.status, 401, cookie)
    t.equal(res.body.code, 'unauthenticated')
  }
})

t.test('given sessions in NATS, then neither the API key nor the cookie token is stored', async (t) => {
  const caller = await aCaller(ops, service.url)
  const { cookie } = await signIn(service.url, caller.key.key)
  const token = cookie.split('=')[1] ?? ''
  const nc = await connect({ servers: servers.natsUrl })
  t.teardown(() => nc.close())
  const kv = await new Kvm(jetstream(nc)).open('mats_console_sessions')
  const values: string[] = []
  for await (const key of await kv.keys()) values.push(`${key} ${(await kv.get(key))?.string() ?? ''}`)
  t.ok(
    values.some((value) => value.includes(caller.key.id)),
    'the session names its key by id',
  )
  t.notOk(
    values.some((value) => value.includes(caller.key.key)),
    'never the key',
  )
  t.notOk(
    values.some((value) => value.includes(token)),
    'never the cookie token',
  )
})

t.test('given GET /console and its routes, then the built app is served with a CSP without inline script and frame-ancestors none', async (t) => {
  for (const path of ['/console', '/console/', '/console/tasks/0b9c6a0e-0000-4000-8000-000000000000', '/console/approvals']) {
    const page = await fetch(`${service.url}${path}`)
    t.equal(page.status, 200, path)
    t.match(page.headers.get('content-type'), /^text\/html/)
    const csp = page.headers.get('content-security-policy') ?? ''
    t.match(csp, /frame-ancestors 'none'/)
    t.match(csp, /script-src 'self'(;|$)/)
    t.notMatch(csp, /unsafe-inline|unsafe-eval/)
    const html = await page.text()
    t.notMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script')
    t.notMatch(html, /https?:\/\//, 'nothing from another origin')
  }
  const html = await (await fetch(`${service.url}/console`)).text()
  const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1] ?? ''
  const js = await fetch(`${service.url}${script}`)
  t.equal(js.status, 200)
  t.match(js.headers.get('content-type'), /^text\/javascript/)
  t.match(js.headers.get('cache-control'), /immutable/)
  t.equal((await fetch(`${service.url}/console/assets/app-000000000000.js`)).status, 404, 'a missing file is not the page')
})

t.test('given a short idle timeout and few allowed failures, on an API process of their own', async (t) => {
  const own = await startTestService(t, servers, { roles: ['api'], env: { CONSOLE_SESSION_IDLE_MS: '1500', RATE_LIMIT_AUTH_FAILURES_PER_MIN: '3', TRUST_PROXY: 'loopback' } })
  const at = (address: string) => ({ 'x-forwarded-for': address, origin: own.url })

  t.test('a session in use outlives the idle timeout; one left alone for longer is refused', async (t) => {
    const caller = await aCaller(ops, own.url)
    const { cookie } = await signIn(own.url, caller.key.key, at('198.51.100.1'))
    const get = async () => (await fetch(`${own.url}/v1/agents`, { headers: { cookie, ...at('198.51.100.1') } })).status
    const started = Date.now()
    await until('three idle timeouts of use', async () => (await get()) !== 200 || (Date.now() - started > 4500 && 'done'), 20_000, 200)
    t.equal(await get(), 200, 'still signed in after 3 × the idle timeout of use')
    const lastUse = Date.now()
    await until('the idle timeout passed', () => Date.now() - lastUse > 1700, 5000, 100)
    t.equal(await get(), 401, 'refused after being left alone')
  })

  t.test('background reads (X-Console-Background: 1) are answered but do not keep a session alive', async (t) => {
    const caller = await aCaller(ops, own.url)
    const { cookie } = await signIn(own.url, caller.key.key, at('198.51.100.4'))
    const get = async (headers: Record<string, string> = {}) => (await fetch(`${own.url}/v1/agents`, { headers: { cookie, ...at('198.51.100.4'), ...headers } })).status
    const lastUse = Date.now()
    t.equal(await get(), 200, 'a read someone asked for')
    const background: number[] = []
    await until(
      'the idle timeout passed, read in the background all along',
      async () => {
        background.push(await get({ 'x-console-background': '1' }))
        return Date.now() - lastUse > 1700
      },
      10_000,
      200,
    )
    t.equal(background[0], 200, 'a background read is answered while the session lives')
    t.equal(await get(), 401, 'the background reads did not keep it alive')
  })

  t.test('failed sign-ins count with every other failed authentication of the address', async (t) => {
    const caller = await aCaller(ops, own.url)
    const wrong = `mats_${'A'.repeat(43)}`
    const statuses: number[] = []
    for (let i = 0; i < 3; i++) statuses.push((await signIn(own.url, wrong, at('198.51.100.2'))).status)
    const fourth = await signIn(own.url, wrong, at('198.51.100.2'))
    t.same(statuses, [401, 401, 401])
    t.equal(fourth.status, 429, 'the fourth failure is over the quota')
    const bearer = await fetch(`${own.url}/v1/agents`, { headers: { authorization: `Bearer mats_${'B'.repeat(43)}`, ...at('198.51.100.2') } })
    t.equal(bearer.status, 429, 'and a made-up bearer key from the address is refused too')
    t.equal((await signIn(own.url, caller.key.key, at('198.51.100.3'))).status, 201, 'another address signs in')
  })
})

t.test('given a task event stream opened with the console cookie, when the key is revoked, then the stream ends within 5 s', async (t) => {
  const caller = await aCaller(ops, service.url)
  const { cookie } = await signIn(service.url, caller.key.key)
  const session = await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())
  // No worker in this process: the task stays pending, so its stream stays open.
  const task = await caller.api.post<{ task: { id: string } }>('/v1/tasks', { sessionId: session.body.session.id, instruction: 'Plan the spring launch' })
  const stream = await openSse(`${service.url}/v1/tasks/${task.body.task.id}/events`, '', { cookie, 'x-forwarded-for': anAddress() })
  t.teardown(() => stream.close())
  t.equal(stream.status, 200)
  t.equal((await stream.next())?.event, 'TaskCreated')
  const revokedAt = Date.now()
  await revokeApiKey(ops, { keyId: caller.key.id }, operator())
  // A deadline, not a wait: a stream that never ends fails here instead of holding the test.
  const deadline = new Promise<'still open'>((resolve) => setTimeout(() => resolve('still open'), 15_000).unref())
  const rest = await Promise.race([stream.rest(), deadline])
  const endedAfter = Date.now() - revokedAt
  t.same(rest, [], 'the stream ended, and nothing more was sent')
  t.ok(endedAfter <= 5000, `the stream ended ${endedAfter} ms after the revocation`)
})

t.test("given the account's event feed opened with the console cookie, when the key is revoked, then the feed ends within 5 s", async (t) => {
  const caller = await aCaller(ops, service.url)
  const { cookie } = await signIn(service.url, caller.key.key)
  const stream = await openSse(`${service.url}/v1/events`, '', { cookie, 'x-forwarded-for': anAddress() })
  t.teardown(() => stream.close())
  t.equal(stream.status, 200)
  const revokedAt = Date.now()
  await revokeApiKey(ops, { keyId: caller.key.id }, operator())
  // A deadline, not a wait: a feed that never ends fails here instead of holding the test.
  const deadline = new Promise<'still open'>((resolve) => setTimeout(() => resolve('still open'), 15_000).unref())
  const rest = await Promise.race([stream.rest(), deadline])
  const endedAfter = Date.now() - revokedAt
  t.same(rest, [], 'the feed ended, and nothing more was sent')
  t.ok(endedAfter <= 5000, `the feed ended ${endedAfter} ms after the revocation`)
})

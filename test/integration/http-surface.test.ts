import { randomUUID } from 'node:crypto'
import { request as httpRequest } from 'node:http'
import { connect } from 'node:net'
import t, { type Test } from 'tap'
import { LIMIT_MAX, PAGE_MAX } from '../../src/contract/common.js'
import { ApiClient, type ApiResponse } from '../helpers/http.js'
import { aCaller, aSessionBody } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'
import { until } from '../helpers/wait.js'
import { ERROR_CODES, type ErrorStatusWithCode } from '../../src/contract/errors.js'

interface Subspecialty {
  id: string
  name: string
  description: string
}
interface AgentView {
  type: string
  name: string
  description: string
  isSupervisor: boolean
  subspecialties: Subspecialty[]
}
interface SessionList {
  sessions: unknown[]
  pagination: { total: number }
}

const SPEC_AGENT_TYPES = ['growth-marketer', 'organic-social', 'paid-media', 'seo', 'email-marketing', 'creative', 'web-developer', 'cro', 'influencer-marketing', 'demand-gen']

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
  t.same(Object.keys(body ?? {}).sort(), ['code', 'error'], `${what}: the body is exactly { error, code }`)
  t.ok((ERROR_CODES[res.status as ErrorStatusWithCode] as readonly string[] | undefined)?.includes(String(body?.code)), `${what}: code ${String(body?.code)} is one of status ${res.status}`)
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
  t.same(
    agents.filter((a) => a.isSupervisor).map((a) => a.type),
    ['growth-marketer'],
    'only growth-marketer is a supervisor',
  )
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
    ['DELETE', '/v1/sessions/nope/more', api],
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
    t.equal(res.body.error, `Content-Type "${contentType}" is not accepted: send the body as JSON with "Content-Type: application/json"`, `${contentType}: says what to send`)
  }
  const untyped = await rawRequest(service.url, 'POST', '/v1/sessions', { authorization: `Bearer ${api.key}` }, good)
  t.equal(untyped.status, 415, 'a body without Content-Type: 415')
  t.same(JSON.parse(untyped.body), { error: 'a body without Content-Type is not accepted: send the body as JSON with "Content-Type: application/json"', code: 'unsupported_media_type' })

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
  // A probe's 503 is its answer: not sent again.
  const probe = new ApiClient(ownService.url).withoutRetry()
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

t.test('given known paths, when called with a method they do not declare, then 405 { error } with Allow listing the declared ones', async (t) => {
  const { api } = await aCaller(service.infra, service.url)
  const cases: [string, string, string][] = [
    ['PUT', '/v1/sessions', 'GET, HEAD, POST'],
    ['DELETE', '/v1/sessions', 'GET, HEAD, POST'],
    ['PATCH', '/v1/tasks', 'GET, HEAD, POST'],
    ['DELETE', `/v1/tasks/${randomUUID()}`, 'GET, HEAD'],
    ['POST', '/v1/agents', 'GET, HEAD'],
    ['OPTIONS', '/v1/me', 'GET, HEAD'],
    ['PUT', '/mcp', 'POST'],
  ]
  for (const [method, path, allow] of cases) {
    const res = await api.request<{ error: string }>(method, path)
    t.equal(res.status, 405, `${method} ${path}: 405`)
    t.equal(res.headers.get('allow'), allow, `${method} ${path}: Allow: ${allow}`)
    isErrorBody(t, res, `${method} ${path}`)
    t.match(res.body.error, new RegExp(`${method} is not allowed.*${allow}`), `${method} ${path}: the error names the allowed methods`)
  }
  const head = await fetch(`${service.url}/v1/agents`, { method: 'HEAD', headers: { authorization: `Bearer ${api.key}` } })
  t.equal(head.status, 200, 'HEAD, which Allow offers for GET routes, is answered')
})

t.test('given methods no route declares (QUERY, PROPFIND), with or without a body, when sent to known paths, then 405 with Allow; to unknown paths, 404', async (t) => {
  const { api } = await aCaller(service.infra, service.url)
  const auth = { authorization: `Bearer ${api.key}` }
  const paths: [string, string][] = [
    ['/v1/tasks', 'GET, HEAD, POST'],
    [`/v1/tasks/${randomUUID()}`, 'GET, HEAD'],
    ['/v1/sessions', 'GET, HEAD, POST'],
    ['/v1/agents', 'GET, HEAD'],
    ['/v1/openapi.json', 'GET, HEAD'],
    ['/healthz', 'GET, HEAD'],
  ]
  const sends: [string, Record<string, string>, string | undefined][] = [
    ['no body, no Content-Type', {}, undefined],
    ['a JSON body', { 'content-type': 'application/json' }, '{"status":"pending"}'],
    ['an XML body', { 'content-type': 'application/xml' }, '<propfind xmlns="DAV:"/>'],
  ]
  for (const method of ['QUERY', 'PROPFIND']) {
    for (const [path, allow] of paths) {
      for (const [what, headers, body] of sends) {
        const res = await rawRequest(service.url, method, path, { ...auth, ...headers }, body)
        t.equal(res.status, 405, `${method} ${path} with ${what}: 405 (got ${res.status} ${res.body})`)
        t.equal(res.headers.allow, allow, `${method} ${path}: Allow: ${allow}`)
        t.match(JSON.parse(res.body), { error: `${method} is not allowed on ${path}; allowed: ${allow}`, code: 'method_not_allowed' })
      }
    }
    const unknown = await rawRequest(service.url, method, '/v1/nope', auth)
    t.equal(unknown.status, 404, `${method} /v1/nope: 404`)
  }
})

t.test('given a value outside an enum, when listing tasks or creating one, then 400 naming the field and listing the allowed values', async (t) => {
  const { api } = await aCaller(service.infra, service.url)
  const status = await api.get<{ error: string }>('/v1/tasks?status=done')
  t.equal(status.status, 400)
  t.equal(status.body.error, 'query.status: must be one of pending, running, completed, failed')
  const agent = await api.get<{ error: string }>('/v1/tasks?agentType=copywriter')
  t.equal(agent.body.error, `query.agentType: must be one of ${SPEC_AGENT_TYPES.join(', ')}`)
  const session = await api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())
  const priority = await api.post<{ error: string }>('/v1/tasks', { sessionId: session.body.session.id, instruction: 'Plan the launch', priority: 'urgent' })
  t.equal(priority.status, 400)
  t.equal(priority.body.error, 'body.priority: must be one of low, normal, high')
  const autonomy = await api.post<{ error: string }>('/v1/sessions', aSessionBody({ autonomy: 'yolo' }))
  t.equal(autonomy.body.error, 'body.autonomy: must be one of draft-only, approval-required, autonomous')
})

t.test('given an id over 100 characters, when GET /v1/tasks/{taskId}, then 400 { error } naming the parameter', async (t) => {
  const { api } = await aCaller(service.infra, service.url)
  for (const length of [101, 1000, 10_000]) {
    const res = await api.get<{ error: string }>(`/v1/tasks/${'a'.repeat(length)}`)
    t.equal(res.status, 400, `${length} characters: 400 (got ${res.status})`)
    isErrorBody(t, res, `${length} characters`)
    t.match(res.body.error, /^params\.taskId: /, `${length} characters: names params.taskId`)
  }
})

t.test('given requests node or the router cannot take, when sent raw, then the status says why and the body is exactly { error }', async (t) => {
  const { key } = await aCaller(service.infra, service.url)
  const auth = `Authorization: Bearer ${key.key}\r\n`
  const cases: [string, string, number][] = [
    ['a URL over the header limit', `GET /v1/tasks?sessionId=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n${auth}\r\n`, 431],
    ['a header over the limit', `GET /v1/agents HTTP/1.1\r\nHost: x\r\n${auth}X-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
    ['a URL that does not percent-decode', `GET /v1/tasks/%E0%A4%A HTTP/1.1\r\nHost: x\r\n${auth}\r\n`, 400],
    ['bytes that are not HTTP', 'HELLO\r\n\r\n', 400],
    // Announced by its length and not sent: a server that refuses an unread body closes the connection, and a
    // client still writing would get a reset that can discard the answer (seen on Node 24).
    ['a body over 64 KiB', `POST /v1/sessions HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: 70000\r\n\r\n`, 413],
  ]
  for (const [what, request, status] of cases) {
    const res = await rawExchange(service.url, request)
    t.equal(res.status, status, `${what}: ${status} (got ${res.status})`)
    t.match(res.headers['content-type'], /^application\/json/, `${what}: JSON`)
    const body: unknown = JSON.parse(res.body)
    t.same(Object.keys(body ?? {}).sort(), ['code', 'error'], `${what}: the body is exactly { error, code } (got ${res.body.slice(0, 200)})`)
    t.ok((ERROR_CODES[status as ErrorStatusWithCode] as readonly string[] | undefined)?.includes(String((body as { code?: string }).code)), `${what}: its code is one of status ${status}`)
  }
})

t.test('given field values that only look valid, when POST /v1/sessions or /v1/tasks, then 400 naming the field and nothing is stored', async (t) => {
  const { api } = await aCaller(service.infra, service.url)
  const refused: [string, Record<string, unknown>, RegExp][] = [
    ['a javascript: companyUrl', aSessionBody({ companyUrl: 'javascript:alert(1)' }), /^body\.companyUrl: must be an http:\/\/ or https:\/\/ URL$/],
    ['a file: companyUrl', aSessionBody({ companyUrl: 'file:///etc/passwd' }), /^body\.companyUrl: /],
    ['a data: companyUrl', aSessionBody({ companyUrl: 'data:text/html,<b>x</b>' }), /^body\.companyUrl: /],
    ['an ftp: companyUrl', aSessionBody({ companyUrl: 'ftp://acme.example' }), /^body\.companyUrl: /],
    ['an http URL with no host', aSessionBody({ companyUrl: 'http:///path' }), /^body\.companyUrl: /],
    ['a whitespace-only name', aSessionBody({ name: ' \t\n ' }), /^body\.name: must not be blank/],
  ]
  for (const [what, body, error] of refused) {
    const res = await api.post<{ error: string }>('/v1/sessions', body)
    t.equal(res.status, 400, `${what}: 400`)
    isErrorBody(t, res, what)
    t.match(res.body.error, error, `${what}: ${res.body.error}`)
  }
  t.equal((await api.get<SessionList>('/v1/sessions')).body.pagination.total, 0, 'no refused body created a session')

  for (const companyUrl of ['http://acme.example', 'https://acme.example/about?x=1', 'HTTPS://ACME.EXAMPLE']) {
    t.equal((await api.post('/v1/sessions', aSessionBody({ companyUrl }))).status, 201, `${companyUrl}: accepted`)
  }
  const sessionId = (await api.get<{ sessions: { id: string }[] }>('/v1/sessions')).body.sessions[0]?.id
  for (const instruction of ['    ', '\n\t \n\t ', ' '.repeat(4000)]) {
    const res = await api.post<{ error: string }>('/v1/tasks', { sessionId, instruction })
    t.equal(res.status, 400, `instruction of ${instruction.length} whitespace characters: 400`)
    t.match(res.body.error, /^body\.instruction: must not be blank/)
  }
  t.equal((await api.get<{ tasks: unknown[] }>('/v1/tasks')).body.tasks.length, 0, 'no refused body created a task')
})

t.test('given page past its declared maximum, when listing, then 400 naming query.page; the maximum itself is served', async (t) => {
  const { api } = await aCaller(service.infra, service.url)
  for (const path of ['/v1/sessions', '/v1/tasks']) {
    t.equal((await api.get(`${path}?page=${PAGE_MAX}&limit=${LIMIT_MAX}`)).status, 200, `${path}: page ${PAGE_MAX}, limit ${LIMIT_MAX}: 200`)
    for (const page of [PAGE_MAX + 1, Number.MAX_SAFE_INTEGER]) {
      const res = await api.get<{ error: string }>(`${path}?page=${page}`)
      t.equal(res.status, 400, `${path}: page ${page}: 400`)
      t.equal(res.body.error, `query.page: must be <= ${PAGE_MAX}`)
    }
  }
})

/** A request with exactly these headers (fetch adds some, and refuses methods such as QUERY with a body). */
function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${baseUrl}${path}`, { method, headers }, (res) => {
      let text = ''
      res.on('data', (chunk: Buffer) => {
        text += chunk.toString()
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

/** One request written to a socket as given, so that what fetch would refuse to send can be sent; the answer once complete. */
function rawExchange(baseUrl: string, request: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const { hostname, port } = new URL(baseUrl)
  return new Promise((resolve, reject) => {
    // Written, not ended: a server reads a half-closed request with a body still to come as aborted.
    const socket = connect(Number(port), hostname, () => socket.write(request))
    let received = ''
    const answer = () => {
      const split = received.indexOf('\r\n\r\n')
      if (split === -1) return null
      const [statusLine = '', ...headerLines] = received.slice(0, split).split('\r\n')
      const headers = Object.fromEntries(headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]))
      const body = received.slice(split + 4)
      return Buffer.byteLength(body) >= Number(headers['content-length'] ?? 0) ? { status: Number(statusLine.split(' ')[1]), headers, body } : null
    }
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString()
      const complete = answer()
      if (complete) {
        socket.destroy()
        resolve(complete)
      }
    })
    socket.on('error', () => undefined)
    socket.on('close', () => reject(new Error(`the connection closed before a whole answer: ${JSON.stringify(received.slice(0, 200))}`)))
  })
}

/**
 * One try of the closing scenario: a slow POST in flight on a connection, the server told to
 * stop, then a GET written on that connection. What the connection received, and whether the
 * POST was still unanswered when the GET went out (else the try says nothing: on a starved
 * machine the POST may have been answered, a 503 say, and its idle connection closed).
 */
async function requestWhileClosing(t: Test): Promise<{ text: string; inFlight: boolean }> {
  // The run outlasts the stop by seconds even on a starved machine, so the POST is normally still
  // in flight (its connection busy, not idle and closed by the stop) when the second request is written.
  const own = await startTestService(t, servers, { env: { OFFLINE_AGENT_LATENCY_MS: '6000' } })
  const { api, key } = await aCaller(own.infra, own.url)
  const session = await api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())
  const { hostname, port } = new URL(own.url)
  const socket = connect(Number(port), hostname)
  const received: Buffer[] = []
  socket.on('data', (chunk) => received.push(chunk))
  socket.on('error', () => {}) // a write after the server closed an idle connection: the try says nothing
  const closed = new Promise((resolve) => socket.on('close', resolve))
  const auth = `Authorization: Bearer ${key.key}\r\n`
  const slow = JSON.stringify({ sessionId: session.body.session.id, instruction: 'Plan a slow launch', waitSeconds: 10 })
  socket.write(`POST /v1/tasks HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: ${slow.length}\r\n\r\n${slow}`)
  await until('the slow request to be in its handler', async () => (await api.get<{ tasks: unknown[] }>('/v1/tasks')).body.tasks.length === 1)

  const stopping = own.stop()
  await until(
    'the server to stop accepting connections',
    () =>
      new Promise<boolean>((resolve) => {
        const probe = connect(Number(port), hostname, () => {
          probe.destroy()
          resolve(false)
        })
        probe.on('error', () => resolve(true))
      }),
  )
  const inFlight = received.length === 0 && !socket.destroyed
  socket.write(`GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n`)
  await closed
  await stopping
  return { text: Buffer.concat(received).toString(), inFlight }
}

t.test('given the server is closing, when a request arrives on a connection still open, then 503 { error } with Retry-After and the connection closes', async (t) => {
  let tried = await requestWhileClosing(t)
  for (let attempt = 2; !tried.inFlight && attempt <= 3; attempt++) {
    t.comment(`try ${attempt - 1}: the POST was answered before the stop (${tried.text.slice(0, 40)}); again`)
    tried = await requestWhileClosing(t)
  }
  t.ok(tried.inFlight, 'the POST was still in flight when the second request came')
  t.match(tried.text, /^HTTP\/1\.1 201 /, 'the request in flight is answered')
  const refusal = /HTTP\/1\.1 503 [^\r]*\r\n([\s\S]*?)\r\n\r\n(.*)$/.exec(tried.text)
  t.ok(refusal, `the request that came while closing is 503 (got ${(tried.text.match(/HTTP\/1\.1 \d{3}/g) ?? []).join(', ')})`)
  t.match(refusal?.[1], /connection: close/i, 'and closes the connection')
  t.match(refusal?.[1], /retry-after: 1/i, 'with Retry-After')
  t.match(JSON.parse(refusal?.[2] ?? 'null'), { error: /shutting down/, code: 'shutting_down' }, 'the body is { error, code }')
})

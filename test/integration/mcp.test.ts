import { CreateScheduleBody, DeletedScheduleResponse, ListSchedulesQuery, ListSchedulesResponse, PauseScheduleInput, ScheduleParams, ScheduleResponse } from '../../src/contract/schedules.js'
import { randomUUID } from 'node:crypto'
import { request as httpRequest } from 'node:http'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js'
import t, { type Test } from 'tap'
import { operator } from '../../src/commands/execute.js'
import { ConfigError, loadConfig } from '../../src/config.js'
import { revokeApiKey } from '../../src/commands/revoke-api-key/revoke-api-key.js'
import { CreateSessionBody, ListSessionsQuery, ListSessionsResponse, SessionParams, SessionResponse, UpdateSessionInput } from '../../src/contract/sessions.js'
import { CreateTaskBody, ListTasksQuery, ListTasksResponse, TaskParams, TaskResponse } from '../../src/contract/tasks.js'
import { ListAgentsResponse } from '../../src/contract/agents.js'
import { CreateTaskBatchBody, CreateTaskBatchResponse } from '../../src/contract/task-batch.js'
import { ActionResponse, DecideActionInput, PendingApprovalsQuery, PendingApprovalsResponse } from '../../src/contract/actions.js'
import { ApiClient } from '../helpers/http.js'
import { callTool, textOf } from '../helpers/mcp.js'
import { aCaller, aKey, anAccount, aSessionBody } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'
import { until } from '../helpers/wait.js'

const ALLOWED_ORIGIN = 'https://app.example'
const PUBLIC_BASE_URL = 'https://mats.example'
const servers = await startServers(t)
const service = await startTestService(t, servers, { env: { OFFLINE_AGENT_LATENCY_MS: '300', MCP_ALLOWED_ORIGINS: ALLOWED_ORIGIN, PUBLIC_BASE_URL } })
const plain = (schema: unknown): unknown => JSON.parse(JSON.stringify(schema))

/** The SDK's own client over real HTTP; `fetch` lets a test route each request. */
async function connect(t: Test, baseUrl: string, key: string | null, fetchVia?: typeof fetch): Promise<Client> {
  const client = new Client({ name: 'mats-test', version: '1.0.0' })
  const headers: Record<string, string> = key ? { Authorization: `Bearer ${key}` } : {}
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), { requestInit: { headers }, ...(fetchVia ? { fetch: fetchVia } : {}) })
  await client.connect(transport)
  t.teardown(() => client.close())
  await client.listTools() // so that the client checks structured results against each outputSchema
  return client
}

/** A tool call that waits out an "unavailable" answer, as REST's helpers wait a 503's Retry-After (test/helpers/mcp.ts). */
const call = callTool

/**
 * get_task until it reports completed. A waiting run_agent_task returns the task as the
 * log has it; the read model behind get_task (and GET /v1/tasks/{id}) catches up with the
 * worker's last event a few milliseconds later.
 */
function completedTask(client: Client, taskId: string): Promise<CallToolResult> {
  return until(`get_task to report task ${taskId} completed`, async () => {
    const result = await call(client, 'get_task', { taskId })
    return (result.structuredContent as { task?: { status: string } } | undefined)?.task?.status === 'completed' && result
  })
}

// biome-ignore lint/suspicious/noExplicitAny: a tool's structured result, read by each test as the REST body it is
function structured<T = Record<string, any>>(t: Test, result: CallToolResult, what: string): T {
  t.notOk(result.isError, `${what} succeeds${result.isError ? `: ${textOf(result)}` : ''}`)
  return result.structuredContent as T
}

t.test('tools/list: exactly these tools, with the REST TypeBox schemas as input and output schemas', async (t) => {
  const { key } = await aCaller(service.infra, service.url)
  const client = await connect(t, service.url, key.key)
  const { tools } = await client.listTools()
  const byName = new Map(tools.map((tool) => [tool.name, tool]))
  t.same([...byName.keys()].sort(), [
    'cancel_task',
    'create_schedule',
    'create_session',
    'decide_action',
    'delete_schedule',
    'get_session',
    'get_task',
    'list_agents',
    'list_pending_approvals',
    'list_schedules',
    'list_sessions',
    'list_tasks',
    'pause_schedule',
    'rerun_task',
    'run_agent_task',
    'run_agent_tasks_batch',
    'update_session',
  ])
  const expected: Record<string, [unknown, unknown]> = {
    list_agents: [{ type: 'object', properties: {}, additionalProperties: false }, ListAgentsResponse],
    list_sessions: [ListSessionsQuery, ListSessionsResponse],
    create_session: [CreateSessionBody, SessionResponse],
    get_session: [SessionParams, SessionResponse],
    update_session: [UpdateSessionInput, SessionResponse],
    run_agent_task: [CreateTaskBody, TaskResponse],
    run_agent_tasks_batch: [CreateTaskBatchBody, CreateTaskBatchResponse],
    get_task: [TaskParams, TaskResponse],
    list_tasks: [ListTasksQuery, ListTasksResponse],
    cancel_task: [TaskParams, TaskResponse],
    rerun_task: [TaskParams, TaskResponse],
    list_pending_approvals: [PendingApprovalsQuery, PendingApprovalsResponse],
    decide_action: [DecideActionInput, ActionResponse],
    create_schedule: [CreateScheduleBody, ScheduleResponse],
    list_schedules: [ListSchedulesQuery, ListSchedulesResponse],
    pause_schedule: [PauseScheduleInput, ScheduleResponse],
    delete_schedule: [ScheduleParams, DeletedScheduleResponse],
  }
  for (const [name, [input, output]] of Object.entries(expected)) {
    const tool = byName.get(name)
    t.same(tool?.inputSchema, plain(input), `${name}: inputSchema is the REST schema`)
    t.same(tool?.outputSchema, plain(output), `${name}: outputSchema is the REST response schema`)
    t.ok((tool?.description ?? '').length > 80, `${name}: has a description a model can act on`)
  }
  t.match(byName.get('run_agent_task')?.inputSchema.properties, { instruction: { type: 'string', minLength: 4, maxLength: 4000 }, waitSeconds: { minimum: 0, maximum: 120 } })
  t.match(byName.get('get_task')?.annotations, { readOnlyHint: true })
})

t.test('the whole flow: create_session, get_session, run_agent_task (waiting), get_task, list_tasks, list_sessions, list_agents; each result is the REST body', async (t) => {
  const { key, api } = await aCaller(service.infra, service.url)
  const client = await connect(t, service.url, key.key)

  const created = await call(client, 'create_session', aSessionBody({ name: 'MCP launch' }))
  const { session } = structured(t, created, 'create_session')
  t.match(textOf(created), session.id, 'the text names the new session id')

  const read = await call(client, 'get_session', { sessionId: session.id })
  t.same(read.structuredContent, (await api.get(`/v1/sessions/${session.id}`)).body, 'get_session is GET /v1/sessions/{id}')
  t.same(read.structuredContent, { session }, 'and answers what create_session stored')
  t.match(textOf(read), /Industry: Aerospace\nTarget audience: Hobbyist rocketeers in North America/, 'the text shows the industry and audience it stores')
  const unknown = await call(client, 'get_session', { sessionId: randomUUID() })
  t.equal(unknown.isError, true)
  t.equal(textOf(unknown), 'session not found')

  const updated = await call(client, 'update_session', { sessionId: session.id, autonomy: 'draft-only' })
  t.match(structured(t, updated, 'update_session'), { session: { id: session.id, autonomy: 'draft-only' } }, 'update_session changes the autonomy')
  t.same(updated.structuredContent, (await api.get(`/v1/sessions/${session.id}`)).body, 'and answers the session as GET /v1/sessions/{id} now does')
  const reverted = structured(t, await call(client, 'update_session', { sessionId: session.id, autonomy: session.autonomy }), 'update_session')
  t.same(reverted, { session }, 'set back, the session is as created')

  const run = await call(client, 'run_agent_task', { sessionId: session.id, agentType: 'seo', instruction: 'Audit the landing page titles', waitSeconds: 30 })
  const { task } = structured(t, run, 'run_agent_task')
  t.match(task, { sessionId: session.id, agentType: 'seo', status: 'completed', result: /\S/ }, 'waitSeconds held the call until the task completed')

  const got = await completedTask(client, task.id)
  t.same(got.structuredContent, { task }, 'get_task reads the task run_agent_task returned')
  t.same(got.structuredContent, (await api.get(`/v1/tasks/${task.id}`)).body, 'get_task is GET /v1/tasks/{id}')
  t.ok(textOf(got).includes(task.result), 'the text of a completed task holds its result Markdown')

  const tasks = await call(client, 'list_tasks', { sessionId: session.id })
  t.same(tasks.structuredContent, (await api.get(`/v1/tasks?sessionId=${session.id}`)).body, 'list_tasks is GET /v1/tasks')
  t.same(
    structured(t, tasks, 'list_tasks').tasks.map((x: { id: string }) => x.id),
    [task.id],
  )

  const sessions = await call(client, 'list_sessions', { limit: 10 })
  t.same(sessions.structuredContent, (await api.get('/v1/sessions?limit=10')).body, 'list_sessions is GET /v1/sessions')
  t.match(structured(t, sessions, 'list_sessions'), { sessions: [{ id: session.id, name: 'MCP launch' }], pagination: { page: 1, limit: 10, total: 1 } })

  const agents = await call(client, 'list_agents')
  t.equal(structured(t, agents, 'list_agents').agents.length, 10)
  t.same(agents.structuredContent, (await api.get('/v1/agents')).body, 'list_agents is GET /v1/agents')
})

t.test('cancel_task: a task in flight ends failed as cancelled, as REST answers it; an ended one is an error saying so', async (t) => {
  const { key, api } = await aCaller(service.infra, service.url)
  const client = await connect(t, service.url, key.key)
  const { session } = structured(t, await call(client, 'create_session', aSessionBody()), 'create_session')
  const { task } = structured(t, await call(client, 'run_agent_task', { sessionId: session.id, instruction: 'Plan a slow launch' }), 'run_agent_task')

  const cancelled = await call(client, 'cancel_task', { taskId: task.id })

  const ended = structured(t, cancelled, 'cancel_task').task
  t.match(ended, { id: task.id, status: 'failed', error: /^cancelled (before it started|while it ran)/ })
  t.same(cancelled.structuredContent, (await api.get(`/v1/tasks/${task.id}`)).body, 'the task as GET /v1/tasks/{id} shows it')
  const again = await call(client, 'cancel_task', { taskId: task.id })
  t.equal(again.isError, true)
  t.match(textOf(again), /already ended/)
})

t.test('rerun_task: a cancelled task runs again as a new task linked to it, as REST answers it; a foreign task is not found', async (t) => {
  const { key, api } = await aCaller(service.infra, service.url)
  const other = await aCaller(service.infra, service.url)
  const client = await connect(t, service.url, key.key)
  const { session } = structured(t, await call(client, 'create_session', aSessionBody()), 'create_session')
  const { task } = structured(t, await call(client, 'run_agent_task', { sessionId: session.id, instruction: 'Plan the autumn launch' }), 'run_agent_task')
  structured(t, await call(client, 'cancel_task', { taskId: task.id }), 'cancel_task')

  const rerun = await call(client, 'rerun_task', { taskId: task.id })

  const copy = structured(t, rerun, 'rerun_task').task
  t.match(copy, { sessionId: session.id, instruction: 'Plan the autumn launch', rerunOf: task.id })
  t.match((await api.get(`/v1/tasks/${copy.id}`)).body, { task: { id: copy.id, rerunOf: task.id, sessionId: session.id } }, 'the task GET /v1/tasks/{id} shows (a worker may have started it since)')
  t.match(textOf(rerun), `a re-run of task ${task.id}`)
  t.same((await api.get<{ task: { reruns: string[] } }>(`/v1/tasks/${task.id}`)).body.task.reruns, [copy.id])
  const foreign = await call(await connect(t, service.url, other.key.key), 'rerun_task', { taskId: task.id })
  t.equal(foreign.isError, true)
  t.equal(textOf(foreign), 'task not found')
})

t.test('tool errors (isError) carry the REST messages: bad arguments name the field, unknown and foreign ids are not found', async (t) => {
  const { key, api } = await aCaller(service.infra, service.url)
  const other = await aCaller(service.infra, service.url)
  const client = await connect(t, service.url, key.key)
  const sessionId = structured(t, await call(client, 'create_session', { name: 'Errors' }), 'create_session').session.id
  const foreignSession = (await other.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
  const foreignTask = (await other.api.post<{ task: { id: string } }>('/v1/tasks', { sessionId: foreignSession, instruction: 'Their own plan' })).body.task.id

  const cases: [string, string, Record<string, unknown>, RegExp | string][] = [
    ['instruction too short', 'run_agent_task', { sessionId, instruction: 'abc' }, /^arguments\.instruction: must not have fewer than 4 characters$/],
    ['sessionId missing', 'run_agent_task', { instruction: 'Plan the launch' }, /^arguments\.sessionId: is required/],
    ['waitSeconds as text (no coercion)', 'run_agent_task', { sessionId, instruction: 'Plan the launch', waitSeconds: '2' }, /^arguments\.waitSeconds: /],
    ['an unknown field', 'create_session', { name: 'x', colour: 'red' }, /^arguments\.colour: is not a known field/],
    ['limit above 100', 'list_sessions', { limit: 101 }, /^arguments\.limit: /],
    ['taskId not a uuid', 'get_task', { taskId: 'task-1' }, /^arguments\.taskId: /],
    ['unknown session', 'run_agent_task', { sessionId: randomUUID(), instruction: 'Plan the launch' }, 'session not found'],
    ["another account's session", 'run_agent_task', { sessionId: foreignSession, instruction: 'Plan the launch' }, 'session not found'],
    ["another account's session as filter", 'list_tasks', { sessionId: foreignSession }, 'session not found'],
    ['unknown task', 'get_task', { taskId: randomUUID() }, 'task not found'],
    ["another account's task, reported like an unknown one", 'get_task', { taskId: foreignTask }, 'task not found'],
    ["cancelling another account's task", 'cancel_task', { taskId: foreignTask }, 'task not found'],
  ]
  for (const [what, tool, args, message] of cases) {
    const result = await call(client, tool, args)
    t.equal(result.isError, true, `${what}: isError`)
    if (typeof message === 'string') t.equal(textOf(result), message, `${what}: "${message}"`)
    else t.match(textOf(result), message, `${what}: ${textOf(result)}`)
  }
  const rest = await api.get<{ error: string }>(`/v1/tasks/${foreignTask}`)
  t.equal(rest.body.error, 'task not found', 'REST gives the same message')
  const restInvalid = await api.post<{ error: string }>('/v1/tasks', { sessionId, instruction: 'abc', colour: 'red' })
  const mcpInvalid = await call(client, 'run_agent_task', { sessionId, instruction: 'abc', colour: 'red' })
  t.equal(textOf(mcpInvalid), restInvalid.body.error.replaceAll('body.', 'arguments.'), `validation reads as in REST: ${textOf(mcpInvalid)}`)

  const broke = await aCaller(service.infra, service.url, { monthlyBudgetUsd: 0 })
  const brokeClient = await connect(t, service.url, broke.key.key)
  const brokeSession = structured(t, await call(brokeClient, 'create_session', { name: 'No budget' }), 'create_session').session.id
  const restRefusal = await broke.api.post<{ error: string }>('/v1/tasks', { sessionId: brokeSession, instruction: 'Plan the launch' })
  const mcpRefusal = await call(brokeClient, 'run_agent_task', { sessionId: brokeSession, instruction: 'Plan the launch' })
  t.equal(restRefusal.status, 402)
  t.equal(mcpRefusal.isError, true)
  t.equal(textOf(mcpRefusal), restRefusal.body.error, 'the budget refusal is the 402 message')
  t.match(mcpRefusal._meta, { code: 'budget_exhausted' }, "REST's code, for programs")
})

t.test('rate limits: tool calls spend the same per-account groups as REST', async (t) => {
  const limited = await startTestService(t, servers, { roles: ['api'], env: { RATE_LIMIT_META_PER_MIN: '2' } })
  const { key } = await aCaller(service.infra, limited.url)
  const api = new ApiClient(limited.url, key.key)
  const client = await connect(t, limited.url, key.key)
  t.equal((await api.get('/v1/agents')).status, 200, 'REST spends one of the two meta requests')
  t.notOk((await call(client, 'list_agents')).isError, 'list_agents spends the other')
  const refused = await call(client, 'list_agents')
  t.equal(refused.isError, true)
  t.match(textOf(refused), /^rate limit exceeded for meta: 2 requests per minute; retry in \d+ s$/)
  t.match(refused._meta, { code: 'rate_limited', retryAfterSeconds: Number }, "the code and the delay, for programs, as REST's Retry-After")
  t.equal((await api.get('/v1/agents')).status, 429, 'and REST is refused too')
})

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } } }

/** A POST with exactly these headers and no others. */
function rawPost(url: string, headers: Record<string, string>, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers }, (res) => {
      let text = ''
      res.on('data', (chunk: Buffer) => {
        text += chunk.toString()
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

/** A raw POST /mcp, as a browser or curl would send it. */
function postMcp(headers: Record<string, string>, body: unknown = INITIALIZE): Promise<Response> {
  return fetch(`${service.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  })
}

t.test('401 with WWW-Authenticate: Bearer without a key, with a bad key and with a revoked key', async (t) => {
  const account = await anAccount(service.infra)
  const revoked = await aKey(service.infra, account.id)
  await revokeApiKey(service.infra, { keyId: revoked.id }, operator())
  for (const [what, key, message] of [
    ['no key', null, /missing Authorization/],
    ['a revoked key', revoked.key, /revoked/],
  ] as const) {
    const refusal = await connect(t, service.url, key).then(
      () => null,
      (err: unknown) => err,
    )
    t.type(refusal, StreamableHTTPError, `${what}: the SDK client is refused`)
    t.equal((refusal as StreamableHTTPError).code, 401, `${what}: StreamableHTTPError code 401`)
    const res = await postMcp(key ? { authorization: `Bearer ${key}` } : {})
    t.equal(res.status, 401)
    t.equal(res.headers.get('www-authenticate'), 'Bearer')
    t.match(await res.json(), { error: message })
  }
  const garbled = await postMcp({ authorization: 'Bearer mats_not-a-real-key' })
  t.equal(garbled.status, 401, 'a mistyped key: 401')
})

t.test("Origin: a hostile one is 403 { error } (DNS rebinding); none, loopback, configured and the service's own are served", async (t) => {
  const { key } = await aCaller(service.infra, service.url)
  const auth = { authorization: `Bearer ${key.key}` }
  for (const origin of ['https://evil.example', 'http://localhost.evil.example', 'null', 'https://app.example.evil']) {
    const res = await postMcp({ ...auth, origin })
    t.equal(res.status, 403, `Origin ${origin}: 403`)
    t.match(await res.json(), { error: /origin not allowed/ })
  }
  t.equal((await postMcp({ origin: 'https://evil.example' })).status, 403, 'refused before the key is even looked at')
  for (const origin of [undefined, 'http://localhost:6274', 'http://127.0.0.1:3000', 'http://[::1]:8080', ALLOWED_ORIGIN, `${ALLOWED_ORIGIN}:443`, PUBLIC_BASE_URL]) {
    const res = await postMcp(origin ? { ...auth, origin } : auth)
    t.equal(res.status, 200, `Origin ${origin ?? '(none)'}: served`)
    t.match(await res.json(), { jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'mats' }, capabilities: { tools: {} } } })
  }
})

t.test('given a POST /mcp without the Accept it needs, then 406 naming what is missing and the header to send; both types are served', async (t) => {
  const { key } = await aCaller(service.infra, service.url)
  const auth = { authorization: `Bearer ${key.key}` }
  const cases: [string | undefined, RegExp][] = [
    [undefined, /no Accept header was sent/],
    ['application/json', /"Accept: application\/json" lacks text\/event-stream/],
    ['text/event-stream', /"Accept: text\/event-stream" lacks application\/json/],
    ['*/*', /"Accept: \*\/\*" lacks application\/json and text\/event-stream/],
  ]
  for (const [accept, names] of cases) {
    // node:http, not fetch: fetch sends "Accept: */*" when none is given.
    const res = await rawPost(`${service.url}/mcp`, { ...auth, 'content-type': 'application/json', ...(accept === undefined ? {} : { accept }) }, JSON.stringify(INITIALIZE))
    t.equal(res.status, 406, `Accept ${accept ?? '(none)'}: 406`)
    const body = JSON.parse(res.body) as { error: { message: string } }
    t.match(body, { jsonrpc: '2.0', error: { code: -32000 }, id: null }, 'a JSON-RPC error, as MCP clients read it')
    t.match(body.error.message, names, `Accept ${accept ?? '(none)'}: says what is missing`)
    t.match(body.error.message, /send "Accept: application\/json, text\/event-stream"/, 'and the header to send')
  }
  t.equal((await postMcp(auth)).status, 200, 'with both types: served')
})

t.test('GET and DELETE /mcp answer 405 { error } with Allow: POST', async (t) => {
  const { key } = await aCaller(service.infra, service.url)
  for (const method of ['GET', 'DELETE']) {
    const res = await fetch(`${service.url}/mcp`, { method, headers: { authorization: `Bearer ${key.key}`, accept: 'text/event-stream' } })
    t.equal(res.status, 405, `${method}: 405`)
    t.equal(res.headers.get('allow'), 'POST')
    t.match(await res.json(), { error: /POST/ })
  }
})

t.test('run_agent_task with waitSeconds and onprogress: progress notifications arrive while the call waits', async (t) => {
  const { key } = await aCaller(service.infra, service.url)
  const client = await connect(t, service.url, key.key)
  const sessionId = structured(t, await call(client, 'create_session', { name: 'Progress' }), 'create_session').session.id
  const updates: Progress[] = []
  const result = (await client.callTool({ name: 'run_agent_task', arguments: { sessionId, instruction: 'Draft a newsletter intro', waitSeconds: 20 } }, undefined, {
    onprogress: (p) => updates.push(p),
    resetTimeoutOnProgress: true,
  })) as CallToolResult
  const { task } = structured(t, result, 'run_agent_task')
  t.equal(task.status, 'completed')
  t.ok(updates.length >= 2, `progress notifications arrived (${updates.length}): ${updates.map((u) => u.message).join(' | ')}`)
  t.ok(
    updates.every((u) => u.total === 20),
    'total is waitSeconds',
  )
  t.ok(
    updates.every((u, i) => i === 0 || u.progress > (updates[i - 1]?.progress ?? 0)),
    'progress increases with each notification',
  )
  t.ok(
    updates.some((u) => u.message?.includes(task.id)),
    'the messages name the task',
  )
  t.match(updates.at(-1), { progress: 20, message: /completed/ }, 'the last one reports the end')
})

t.test('two API processes: a client alternating between them sees one consistent state', async (t) => {
  const second = await startTestService(t, servers, { roles: ['api'] })
  const bases = [service.url, second.url]
  const served: string[] = []
  // Every HTTP request of one SDK client goes to the next process in turn.
  const alternating: typeof fetch = (input, init) => {
    const base = bases[served.length % bases.length] ?? service.url
    served.push(base)
    const url = new URL(input instanceof Request ? input.url : input.toString())
    return fetch(new URL(url.pathname + url.search, base), init)
  }
  const { key } = await aCaller(service.infra, service.url)
  const client = await connect(t, service.url, key.key, alternating)
  const made: { id: string }[] = []
  for (const name of ['First', 'Second', 'Third']) made.push(structured(t, await call(client, 'create_session', { name }), 'create_session').session)
  const listed = structured(t, await call(client, 'list_sessions'), 'list_sessions').sessions.map((s: { id: string }) => s.id)
  t.same([...listed].sort(), made.map((s) => s.id).sort(), 'sessions created through either process are listed by the other')

  const sessionId = made[0]?.id
  const { task } = structured(t, await call(client, 'run_agent_task', { sessionId, instruction: 'Plan three launch posts', waitSeconds: 30 }), 'run_agent_task')
  t.equal(task.status, 'completed')
  const again = await completedTask(client, task.id)
  t.same(structured(t, again, 'get_task').task, task, 'the processes read the same task')
  const [a, b] = [await call(client, 'list_tasks', { sessionId }), await call(client, 'list_tasks', { sessionId })]
  t.same(a.structuredContent, b.structuredContent, 'both processes list the same tasks')
  t.ok(served.includes(service.url) && served.includes(second.url), `both processes served requests (${served.length} in all)`)
})

t.test('MCP_ALLOWED_ORIGINS takes comma-separated origins and refuses anything else at boot', async (t) => {
  t.equal(loadConfig({ MCP_ALLOWED_ORIGINS: 'https://a.example, http://b.example:8080' }).MCP_ALLOWED_ORIGINS, 'https://a.example, http://b.example:8080')
  for (const value of ['a.example', 'https://a.example/path', '*', 'https://a.example,']) {
    t.throws(() => loadConfig({ MCP_ALLOWED_ORIGINS: value }), ConfigError, `${value} is refused`)
  }
})

t.test('JSON-RPC the SDK would mishandle: an empty batch is Invalid Request; tools/call with non-object arguments is Invalid params naming them', async (t) => {
  const { key } = await aCaller(service.infra, service.url)
  const auth = { authorization: `Bearer ${key.key}` }

  const empty = await postMcp(auth, [])
  t.equal(empty.status, 400, 'an empty batch: HTTP 400')
  t.same(await empty.json(), { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request: an empty batch' }, id: null }, 'an empty batch: -32600, id null')

  const toolCall = (id: number, params: unknown) => ({ jsonrpc: '2.0', id, method: 'tools/call', params })
  const cases: [string, unknown, RegExp][] = [
    ['an array', [1, 2], /^params\.arguments: must be an object \(got an array\)$/],
    ['a string', 'seo', /^params\.arguments: must be an object \(got string\)$/],
    ['a number', 5, /^params\.arguments: must be an object \(got number\)$/],
    ['null', null, /^params\.arguments: must be an object \(got null\)$/],
  ]
  for (const [what, args, message] of cases) {
    const res = await postMcp(auth, toolCall(7, { name: 'list_agents', arguments: args }))
    t.equal(res.status, 200, `arguments ${what}: HTTP 200 carrying a JSON-RPC error`)
    const body = (await res.json()) as { id: number; error?: { code: number; message: string } }
    t.equal(body.id, 7, `arguments ${what}: answers the request's id`)
    t.equal(body.error?.code, -32602, `arguments ${what}: -32602 Invalid params (got ${JSON.stringify(body.error)})`)
    t.match(body.error?.message, message, `arguments ${what}: names params.arguments`)
  }
  const noName = (await (await postMcp(auth, toolCall(8, { arguments: {} }))).json()) as { error?: { code: number; message: string } }
  t.match(noName.error, { code: -32602, message: /^params\.name: / }, 'no tool name: -32602 naming params.name')

  const batch = await postMcp(auth, [toolCall(1, { name: 'list_agents', arguments: [] }), toolCall(2, { name: 'list_agents', arguments: {} })])
  const answers = (await batch.json()) as { id: number; error?: { code: number }; result?: { structuredContent?: { agents?: unknown[] } } }[]
  const byId = new Map(answers.map((a) => [a.id, a]))
  t.equal(byId.get(1)?.error?.code, -32602, 'in a batch, the malformed call is refused')
  t.equal(byId.get(2)?.result?.structuredContent?.agents?.length, 10, 'and the well-formed call beside it is served')
})

t.test('schedule tools: create, list, pause and delete a schedule as REST does; a foreign schedule is not found', async (t) => {
  const caller = await aCaller(service.infra, service.url)
  const session = await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())
  const client = await connect(t, service.url, caller.key.key)
  // When
  const created = await call(client, 'create_schedule', { sessionId: session.body.session.id, agentType: 'seo', instruction: 'Audit the blog weekly', cron: '0 9 * * 1', timezone: 'Europe/Berlin' })
  // Then
  const schedule = structured(t, created, 'create_schedule').schedule as { id: string; paused: boolean; nextRuns: string[] }
  t.equal(schedule.nextRuns.length, 5)
  const listed = structured(t, await call(client, 'list_schedules', {}), 'list_schedules').schedules as { id: string }[]
  t.same(
    listed.map((s) => s.id),
    [schedule.id],
  )
  const paused = structured(t, await call(client, 'pause_schedule', { scheduleId: schedule.id }), 'pause_schedule').schedule as { paused: boolean; nextRuns: string[] }
  t.equal(paused.paused, true)
  t.same(paused.nextRuns, [])
  const foreign = await call(await connect(t, service.url, (await aCaller(service.infra, service.url)).key.key), 'delete_schedule', { scheduleId: schedule.id })
  t.equal(foreign.isError, true, 'another account cannot delete it')
  t.same(structured(t, await call(client, 'delete_schedule', { scheduleId: schedule.id }), 'delete_schedule'), { deleted: true, scheduleId: schedule.id })
  t.equal((await caller.api.get(`/v1/schedules/${schedule.id}`)).status, 404)
})

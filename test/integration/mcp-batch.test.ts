import { randomUUID } from 'node:crypto'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import t, { type Test } from 'tap'
import { callTool, textOf } from '../helpers/mcp.js'
import { aCaller, aSessionBody, type Caller } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'

type Result =
  | { status: 201; task: { id: string; sessionId: string; instruction: string; status: string } }
  | { status: number; code: string; error: string; existingTaskId?: string; retryAfter?: number }

const servers = await startServers(t)
// No worker: created tasks stay pending, so an identical brief is a 409 and the answers compare plainly with REST.
const service = await startTestService(t, servers, { roles: ['api', 'projector'] })

/** The SDK's own client over real HTTP, as mcp.test.ts connects. */
async function connect(t: Test, baseUrl: string, key: string): Promise<Client> {
  const client = new Client({ name: 'mats-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }))
  t.teardown(() => client.close())
  await client.listTools() // so that the client checks structured results against the outputSchema
  return client
}

const batch = (client: Client, tasks: unknown[]) => callTool(client, 'run_agent_tasks_batch', { tasks })
const resultsOf = (result: CallToolResult) => (result.structuredContent as { results: Result[] }).results
const newSession = async (caller: Caller) => (await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id

t.test(
  'given three client sessions, a foreign one, a bad item and a twin, when run_agent_tasks_batch is called, then each item is created or refused on its own, in order, as REST answers it',
  async (t) => {
    const agency = await aCaller(service.infra, service.url)
    const stranger = await aCaller(service.infra, service.url)
    const client = await connect(t, service.url, agency.key.key)
    const sessions = [await newSession(agency), await newSession(agency), await newSession(agency)]
    const brief = 'Draft this month’s LinkedIn posts from the latest case study'

    const answer = await batch(client, [
      { sessionId: sessions[0], agentType: 'organic-social', instruction: brief },
      { sessionId: await newSession(stranger), instruction: brief },
      { sessionId: sessions[1], agentType: 'organic-social', instruction: brief },
      { sessionId: sessions[2], instruction: 'no' },
      { sessionId: sessions[0], agentType: 'organic-social', instruction: brief },
      { sessionId: sessions[2], agentType: 'organic-social', instruction: brief },
    ])

    t.notOk(answer.isError, `the call succeeds${answer.isError ? `: ${textOf(answer)}` : ''}`)
    const results = resultsOf(answer)
    t.same(
      results.map((result) => result.status),
      [201, 404, 201, 400, 409, 201],
    )
    t.same(
      results.map((result) => ('task' in result ? result.task.sessionId : null)),
      [sessions[0], null, sessions[1], null, null, sessions[2]],
      'each created task is that of its item',
    )
    const first = results[0]
    t.match(results[3], { code: 'invalid_request', error: /^tasks\[3\]\.instruction: / }, 'the bad item names its index and field')
    t.match(results[4], { code: 'identical_task_pending', existingTaskId: first && 'task' in first ? first.task.id : 'none' }, 'the twin names the task of item 0')
    for (const result of results) {
      if ('task' in result) t.same((await agency.api.get(`/v1/tasks/${result.task.id}`)).body, { task: result.task }, `task ${result.task.id}: as GET /v1/tasks/{id} shows it`)
    }
    const text = textOf(answer)
    t.match(text, /^3 of 6 tasks created:\n/)
    t.match(text, `\n4. not created: 409 identical_task_pending: `)
    t.match(text, `\n5. created task ${results[5] && 'task' in results[5] ? results[5].task.id : 'none'} (pending`)
  },
)

t.test('given the same items, then the tool answers what POST /v1/tasks/batch answers, status for status', async (t) => {
  const caller = await aCaller(service.infra, service.url, { monthlyBudgetUsd: 0 })
  const client = await connect(t, service.url, caller.key.key)
  const sessionId = await newSession(caller)
  const items = [
    { sessionId, instruction: 'Plan the launch' },
    { sessionId: randomUUID(), instruction: 'Plan the launch' },
    { sessionId, instruction: 'x' },
  ]

  const rest = await caller.api.post<{ results: Result[] }>('/v1/tasks/batch', { tasks: items })
  const mcp = resultsOf(await batch(client, items))

  t.same(
    mcp.map((result) => [result.status, 'code' in result ? result.code : 'created']),
    [
      [402, 'budget_exhausted'],
      [404, 'not_found'],
      [400, 'invalid_request'],
    ],
  )
  t.same(mcp, rest.body.results, 'the same results as REST')
})

t.test('given a tasks.create limit of 3 a minute, then each item counts: the fourth is a 429 result, and a call with none admitted is a tool error', async (t) => {
  const limited = await startTestService(t, servers, { roles: ['api'], env: { RATE_LIMIT_TASKS_CREATE_PER_MIN: '3' } })
  const caller = await aCaller(service.infra, limited.url)
  const client = await connect(t, limited.url, caller.key.key)
  const sessionId = await newSession(caller)

  const first = await batch(
    client,
    [1, 2, 3, 4].map((n) => ({ sessionId, instruction: `Write tweet number ${n}` })),
  )
  const refused = await batch(client, [{ sessionId, instruction: 'Write tweet number 5' }])

  t.same(
    resultsOf(first).map((result) => result.status),
    [201, 201, 201, 429],
  )
  t.match(resultsOf(first)[3], { code: 'rate_limited', retryAfter: Number })
  t.equal(refused.isError, true)
  t.match(textOf(refused), /^rate limit exceeded for tasks\.create: 3 requests per minute; retry in \d+ s$/)
})

t.test('given a malformed call, then a tool error naming the field', async (t) => {
  const caller = await aCaller(service.infra, service.url)
  const client = await connect(t, service.url, caller.key.key)
  for (const [args, message] of [
    [{ tasks: [] }, /^arguments\.tasks: /],
    [{ tasks: Array.from({ length: 101 }, () => ({})) }, /^arguments\.tasks: /],
    [{}, /^arguments\.tasks: is required/],
    [{ tasks: [{}], extra: 1 }, /^arguments\.extra: is not a known field/],
  ] as const) {
    const result = await callTool(client, 'run_agent_tasks_batch', args)
    t.equal(result.isError, true, JSON.stringify(args).slice(0, 40))
    t.match(textOf(result), message)
  }
})

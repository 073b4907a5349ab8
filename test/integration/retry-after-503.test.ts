import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import t from 'tap'
import type { AppContext } from '../../src/app-context.js'
import type { ApiClient, ApiResponse } from '../helpers/http.js'
import { heldBack } from '../helpers/decisions.js'
import { textOf, unavailableRetryMs } from '../helpers/mcp.js'
import { aCaller } from '../helpers/mothers.js'
import { retryAfterMs } from '../helpers/retry-after.js'
import { taskHistories } from '../helpers/task-log.js'
import { aSession, heldNatsRig } from '../helpers/held-nats-rig.js'
import { until } from '../helpers/wait.js'

/**
 * Invariant 11 answers POST /v1/tasks 503 (Retry-After: 2) when NATS does not acknowledge the
 * append in time, but the append may be stored after that answer. A client that does what the
 * 503 asks, the same request again after Retry-After, must then get its task, not a 409 or a
 * second task. NATS "pauses" here: the service reaches it through a proxy that holds back what
 * the service sends from the task's TaskCreated on, until the test has its 503.
 */

interface Reply {
  task?: { id: string }
  session?: { id: string }
  code?: string
  existingTaskId?: string
}

const { proxy, service, reader } = await heldNatsRig(t)

async function tasksOf(infra: AppContext, accountId: string): Promise<string[]> {
  return [...(await taskHistories(infra)).entries()].filter(([, events]) => events[0]?.accountId === accountId).map(([taskId]) => taskId)
}

/** POSTs the brief while NATS holds back its TaskCreated, and lets it through once the 503 is in. */
async function answeredUnavailable(api: ApiClient, brief: { sessionId: string; instruction: string }, headers: Record<string, string>): Promise<ApiResponse<Reply>> {
  const held = proxy.holdFrom(brief.instruction)
  const posting = api.withoutRetry().post<Reply>('/v1/tasks', brief, headers)
  await heldBack(held, posting)
  const answered = await posting
  proxy.release()
  return answered
}

t.test('given a POST answered 503 whose task is stored afterwards, when it is sent again with its key after Retry-After, then it gets 201 with that task and no second task exists', async (t) => {
  const { api, account } = await aCaller(service.infra, service.url)
  const brief = { sessionId: await aSession(api), instruction: `Plan the winter launch posts ${randomUUID()}` }
  const key = randomUUID()

  const first = await answeredUnavailable(api, brief, { 'idempotency-key': key })
  t.equal(first.status, 503, 'the append was not acknowledged in time')
  t.equal(first.body.code, 'unavailable')
  const stored = await until('the held TaskCreated stored', async () => (await tasksOf(reader, account.id))[0], 20_000)

  // When: what the 503 asks, the same request after Retry-After (and again while its key is still settling, as 409 in flight asks).
  await sleep(retryAfterMs(first.headers.get('retry-after')) ?? 2000)
  const retried = await until(
    'the retry answered other than 409 in flight',
    async () => {
      const res = await api.withoutRetry().post<Reply>('/v1/tasks', brief, { 'idempotency-key': key })
      return res.body.code === 'idempotency_key_in_flight' ? undefined : res
    },
    20_000,
    250,
  )

  t.equal(retried.status, 201, `the retry gets the task (${JSON.stringify(retried.body)})`)
  t.equal(retried.body.task?.id, stored, 'the task stored after the 503')
  t.equal(retried.headers.get('idempotent-replayed'), 'true', 'answered from the key, not executed again')
  t.equal(retried.headers.get('location'), `/v1/tasks/${stored}`)
  t.same(await tasksOf(reader, account.id), [stored], 'exactly one task stored')
})

t.test('given a POST without a key answered 503 whose task is stored afterwards, when it is sent again, then the 409 names that task and no second task exists', async (t) => {
  const { api, account } = await aCaller(service.infra, service.url)
  const brief = { sessionId: await aSession(api), instruction: `Plan the spring launch posts ${randomUUID()}` }

  const first = await answeredUnavailable(api, brief, {})
  t.equal(first.status, 503)
  const stored = await until('the held TaskCreated stored', async () => (await tasksOf(reader, account.id))[0], 20_000)

  await sleep(retryAfterMs(first.headers.get('retry-after')) ?? 2000)
  const retried = await api.post<Reply>('/v1/tasks', brief)

  t.equal(retried.status, 409, `the brief is pending already (${JSON.stringify(retried.body)})`)
  t.equal(retried.body.code, 'identical_task_pending')
  t.equal(retried.body.existingTaskId, stored, 'the 409 names the task stored after the 503')
  t.same(await tasksOf(reader, account.id), [stored], 'exactly one task stored')
})

t.test(
  "given NATS that does not acknowledge the append in time, when run_agent_task is called over MCP, then its tool error says unavailable and when to call again, as REST's Retry-After",
  async (t) => {
    const { api, key } = await aCaller(service.infra, service.url)
    const sessionId = await aSession(api)
    const client = new Client({ name: 'mats-test', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', service.url), { requestInit: { headers: { Authorization: `Bearer ${key.key}` } } }))
    t.teardown(() => client.close())
    await client.listTools() // so that the client checks results against each outputSchema
    const instruction = `Plan the summer launch posts ${randomUUID()}`

    const held = proxy.holdFrom(instruction)
    const calling = client.callTool({ name: 'run_agent_task', arguments: { sessionId, instruction } }) as Promise<CallToolResult>
    await heldBack(held, calling)
    const result = await calling
    proxy.release()

    t.equal(result.isError, true)
    t.match(result._meta, { code: 'unavailable', retryAfterSeconds: 2 }, 'the code and the delay, for programs')
    t.equal(unavailableRetryMs(result), 2000)
    t.match(textOf(result), /^service temporarily unavailable, retry later: call again in 2 s$/, 'and for people and models')
  },
)

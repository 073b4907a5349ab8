import { createMatsClient } from '@mats/client'
import t from 'tap'
import { aCaller, aSessionBody } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'

const servers = await startServers(t)
const service = await startTestService(t, servers, { env: { OFFLINE_AGENT_LATENCY_MS: '0' } })

t.test('given the generated client, then a caller runs the whole flow through it, typed, errors included', async (t) => {
  const { key } = await aCaller(service.infra, service.url)
  const mats = createMatsClient({ baseUrl: service.url, apiKey: key.key })

  const agents = await mats.GET('/agents')
  t.equal(agents.data?.agents.length, 10, 'GET /agents')

  const session = await mats.POST('/sessions', { body: aSessionBody({ name: 'Through the client' }) })
  t.equal(session.response.status, 201)
  const sessionId = session.data?.session.id ?? ''

  const created = await mats.POST('/tasks', { body: { sessionId, agentType: 'seo', instruction: 'Audit the blog titles', waitSeconds: 20 } })
  t.equal(created.data?.task.status, 'completed', 'POST /tasks with waitSeconds')
  t.equal(created.response.headers.get('location'), `/v1/tasks/${created.data?.task.id}`)

  const read = await mats.GET('/tasks/{taskId}', { params: { path: { taskId: created.data?.task.id ?? '' } } })
  t.same(read.data?.task, created.data?.task, 'GET /tasks/{taskId} with a typed path parameter')

  const listed = await mats.GET('/tasks', { params: { query: { sessionId, status: 'completed', limit: 5 } } })
  t.same(
    listed.data?.tasks.map((task) => task.id),
    [created.data?.task.id],
    'GET /tasks with typed query parameters',
  )
  t.match(listed.data?.pagination, { page: 1, limit: 5, total: 1 })

  const again = await mats.POST('/tasks/{taskId}/cancel', { params: { path: { taskId: created.data?.task.id ?? '' } } })
  t.equal(again.response.status, 409)
  t.equal(again.error?.code, 'task_already_ended', 'a typed error: { error, code }')

  const rerun = await mats.POST('/tasks/{taskId}/rerun', { params: { path: { taskId: created.data?.task.id ?? '' } } })
  t.equal(rerun.response.status, 201, 'POST /tasks/{taskId}/rerun')
  t.equal(rerun.data?.task.rerunOf, created.data?.task.id, 'typed rerunOf')
  const original = await mats.GET('/tasks/{taskId}', { params: { path: { taskId: created.data?.task.id ?? '' } } })
  t.same(original.data?.task.reruns, [rerun.data?.task.id], 'typed reruns')

  const batch = await mats.POST('/tasks/batch', {
    body: {
      tasks: [
        { sessionId, instruction: 'Write the welcome email' },
        { sessionId, instruction: 'no' },
      ],
    },
    headers: { 'idempotency-key': `batch-${sessionId}` },
  })
  t.equal(batch.response.status, 200, 'POST /tasks/batch')
  const [made, refusedBody] = batch.data?.results ?? []
  t.equal(made?.status, 201)
  t.ok(made && 'task' in made && made.task.sessionId === sessionId, 'a typed created result')
  t.match(refusedBody, { status: 400, code: 'invalid_request', error: /^tasks\[1\]\.instruction/ }, 'a typed refused result')

  const patched = await mats.PATCH('/sessions/{sessionId}', { params: { path: { sessionId } }, body: { autonomy: 'draft-only' } })
  t.equal(patched.data?.session.autonomy, 'draft-only', 'PATCH /sessions/{sessionId}')
  const counts = await mats.GET('/tasks/counts')
  const { pending = 0, running = 0, completed = 0, failed = 0, total } = counts.data?.counts ?? {}
  t.ok(completed >= 1 && total === pending + running + completed + failed, 'GET /tasks/counts')
  const byPriority = await mats.GET('/tasks', { params: { query: { priority: 'normal', createdFrom: created.data?.task.createdAt ?? '' } } })
  t.equal(byPriority.data?.tasks[0]?.priority, 'normal', 'GET /tasks with the dashboard filters')
  const usage = await mats.GET('/usage', { params: { query: {} } })
  t.match(usage.data?.usage, { month: /^\d{4}-\d{2}$/, budgetUsd: Number, reservedUsd: Number }, 'GET /usage')
  const badMonth = await mats.GET('/usage', { params: { query: { month: 'soon' } } })
  t.equal(badMonth.error?.code, 'invalid_request')
  const feed = await mats.GET('/events', { parseAs: 'stream' })
  t.match(feed.response.headers.get('content-type'), /^text\/event-stream/, 'GET /events answers a stream')
  await feed.response.body?.cancel()

  const wrongKey = createMatsClient({ baseUrl: `${service.url}/`, apiKey: 'mats_not-a-key' })
  const refused = await wrongKey.GET('/me')
  t.equal(refused.response.status, 401)
  t.equal(refused.error?.code, 'unauthenticated')
})

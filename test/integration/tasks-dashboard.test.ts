import { randomUUID } from 'node:crypto'
import t from 'tap'
import type { ApiClient } from '../helpers/http.js'
import { aCaller, aSessionBody, type Caller } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { startService } from '../../src/service.js'
import { startTestService, testConfig, testLog } from '../helpers/service.js'
import { until } from '../helpers/wait.js'

const servers = await startServers(t)
// No worker: tasks stay pending unless a test starts one.
const service = await startTestService(t, servers, { roles: ['api', 'projector'] })
const RUN_DEADLINE_MS = 60_000

interface TaskBody {
  id: string
  status: string
  priority: string
  agentType: string
  createdAt: string
  costUsd: number
  usage: unknown
}
interface ListBody {
  tasks: TaskBody[]
  pagination: { page: number; limit: number; total: number; totalPages: number; totalExact: boolean; nextCursor: string | null }
  error?: string
}
type Counts = { pending: number; running: number; completed: number; failed: number; total: number }

async function aSession(api: ApiClient): Promise<string> {
  return (await api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
}

async function aTask(api: ApiClient, body: Record<string, unknown>): Promise<TaskBody> {
  const res = await api.post<{ task: TaskBody }>('/v1/tasks', { instruction: `A brief ${randomUUID()}`, ...body })
  if (res.status !== 201) throw new Error(`task not created: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body.task
}

const list = (caller: Caller, query: string) => caller.api.get<ListBody>(`/v1/tasks?${query}`)
const ids = (body: ListBody) => body.tasks.map((task) => task.id)
const countsOf = async (caller: Caller) => (await caller.api.get<{ counts: Counts }>('/v1/tasks/counts')).body.counts

t.test('given tasks of several priorities, agents and times, then GET /v1/tasks filters by priority and by a creation window, combined with the others, newest first', async (t) => {
  const caller = await aCaller(service.infra, service.url)
  const sessionId = await aSession(caller.api)
  const low = await aTask(caller.api, { sessionId, priority: 'low', agentType: 'seo' })
  const high = await aTask(caller.api, { sessionId, priority: 'high', agentType: 'seo' })
  const highCro = await aTask(caller.api, { sessionId, priority: 'high', agentType: 'cro' })
  t.equal(high.priority, 'high', 'a task shows its priority')

  t.same(ids((await list(caller, 'priority=high')).body), [highCro.id, high.id], 'by priority, newest first')
  t.same(ids((await list(caller, 'priority=high&agentType=seo')).body), [high.id], 'combined with agent')
  t.same(ids((await list(caller, `createdFrom=${encodeURIComponent(high.createdAt)}`)).body), [highCro.id, high.id], 'createdFrom is inclusive')
  t.same(ids((await list(caller, `createdTo=${encodeURIComponent(high.createdAt)}`)).body), [low.id], 'createdTo is exclusive')
  const offset = new Date(new Date(high.createdAt).getTime() + 2 * 3600_000).toISOString().replace('Z', '+02:00')
  t.same(ids((await list(caller, `createdFrom=${encodeURIComponent(offset)}&createdTo=${encodeURIComponent(highCro.createdAt)}`)).body), [high.id], 'an instant with an offset means the same time')
  const page = (await list(caller, 'priority=high&limit=1&page=2')).body
  t.same([ids(page), page.pagination], [[high.id], { page: 2, limit: 1, total: 2, totalPages: 2, totalExact: true, nextCursor: null }], 'paged: the last page names no next')
})

t.test('given bad filters, then 400 naming the field', async (t) => {
  const caller = await aCaller(service.infra, service.url)
  for (const [query, field] of [
    ['priority=urgent', 'query.priority'],
    ['createdFrom=yesterday', 'query.createdFrom'],
    ['createdTo=2026-11-31', 'query.createdTo'],
  ] as const) {
    const res = await list(caller, query)
    t.equal(res.status, 400, `${query}: 400`)
    t.match(res.body, { error: new RegExp(`^${field.replace('.', '\\.')}: `), code: 'invalid_request' })
  }
})

t.test('given tasks that are pending, cancelled while pending, and run to the end, then the counts by status follow every move, agree with the lists, and are the account’s own', async (t) => {
  const caller = await aCaller(service.infra, service.url)
  const stranger = await aCaller(service.infra, service.url)
  const sessionId = await aSession(caller.api)
  t.same(await countsOf(caller), { pending: 0, running: 0, completed: 0, failed: 0, total: 0 }, 'none yet')
  const tasks = [await aTask(caller.api, { sessionId }), await aTask(caller.api, { sessionId }), await aTask(caller.api, { sessionId })]
  t.same(await countsOf(caller), { pending: 3, running: 0, completed: 0, failed: 0, total: 3 }, 'created: pending, counted at once')

  t.equal((await caller.api.post(`/v1/tasks/${tasks[0]?.id}/cancel`, {})).status, 200)
  t.same(await countsOf(caller), { pending: 2, running: 0, completed: 0, failed: 1, total: 3 }, 'cancelled while pending: failed, not running')

  const worker = await startService(testConfig(servers, { OFFLINE_AGENT_LATENCY_MS: '0' }), testLog(), new Set(['worker'] as const))
  t.teardown(() => worker.stop())
  const ended = await until(
    'both others to complete',
    async () => {
      const counts = await countsOf(caller)
      return counts.completed === 2 && counts
    },
    RUN_DEADLINE_MS,
  )
  t.same(ended, { pending: 0, running: 0, completed: 2, failed: 1, total: 3 })

  const completed = (await list(caller, 'status=completed')).body
  t.equal(completed.pagination.total, ended.completed, 'a status-filtered list totals the same')
  t.equal((await list(caller, '')).body.pagination.total, ended.total, 'and so does the whole list')
  t.match(completed.tasks[0], { costUsd: Number, usage: { provider: 'offline' } }, 'an ended task shows its usage and cost')
  t.same(await countsOf(stranger), { pending: 0, running: 0, completed: 0, failed: 0, total: 0 }, 'another account counts none of them')
})

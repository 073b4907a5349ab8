import { randomUUID } from 'node:crypto'
import t from 'tap'
import { aCaller, aSessionBody, endedTaskDrafts, type Caller } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'
import { seedTaskDocuments } from '../helpers/task-documents.js'

/** GET /v1/tasks past the first page (ADR 0043): keyset cursors, and totals counted only so far. */
const servers = await startServers(t)
// No worker: tasks stay pending.
const service = await startTestService(t, servers, { roles: ['api', 'projector'] })

interface ListBody {
  tasks: { id: string }[]
  pagination: { page: number; limit: number; total: number; totalPages: number; totalExact: boolean; nextCursor: string | null }
  error?: string
  code?: string
}

const list = (caller: Caller, query: string) => caller.api.get<ListBody>(`/v1/tasks?${query}`)
const ids = (body: ListBody) => body.tasks.map((task) => task.id)

async function aSession(caller: Caller): Promise<string> {
  return (await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
}

async function aTask(caller: Caller, sessionId: string, agentType = 'seo'): Promise<string> {
  const res = await caller.api.post<{ task: { id: string } }>('/v1/tasks', { sessionId, agentType, instruction: `A brief ${randomUUID()}` })
  if (res.status !== 201) throw new Error(`task not created: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body.task.id
}

t.test('given 7 tasks, when a client follows nextCursor 3 at a time, then it gets each task once, newest first, unshifted by a task created meanwhile', async (t) => {
  const caller = await aCaller(service.infra, service.url)
  const sessionId = await aSession(caller)
  const created: string[] = []
  for (let i = 0; i < 7; i++) created.push(await aTask(caller, sessionId, i % 2 === 0 ? 'seo' : 'cro'))
  const newest = [...created].reverse()

  const first = (await list(caller, 'limit=3')).body
  t.same([ids(first), first.pagination.page, typeof first.pagination.nextCursor], [newest.slice(0, 3), 1, 'string'], 'the first page names the next')
  const meanwhile = await aTask(caller, sessionId)
  const second = (await list(caller, `limit=3&cursor=${first.pagination.nextCursor}`)).body
  t.same([ids(second), second.pagination.page], [newest.slice(3, 6), 2], 'the next page starts after the last task shown, not shifted by the new one')
  const third = (await list(caller, `limit=3&cursor=${second.pagination.nextCursor}`)).body
  t.same([ids(third), third.pagination.nextCursor, third.pagination.page], [newest.slice(6), null, 3], 'the last page names no next')
  t.same(ids((await list(caller, 'limit=3')).body)[0], meanwhile, 'the new task heads the first page')

  const seo = (await list(caller, 'agentType=seo&limit=2')).body
  const seoNext = (await list(caller, `agentType=seo&limit=2&cursor=${seo.pagination.nextCursor}`)).body
  t.same([...ids(seo), ...ids(seoNext)], [meanwhile, created[6], created[4], created[2]], 'a cursor follows a filter')
})

t.test('given a cursor no page gave, or a cursor with a page number, then 400 naming the field', async (t) => {
  const caller = await aCaller(service.infra, service.url)
  const sessionId = await aSession(caller)
  await aTask(caller, sessionId)
  await aTask(caller, sessionId)
  const cursor = (await list(caller, 'limit=1')).body.pagination.nextCursor
  const forged = Buffer.from(JSON.stringify({ c: 'yesterday', i: 'x', p: 2 })).toString('base64url')
  for (const [query, field] of [
    ['cursor=bm90LWpzb24', 'query.cursor'],
    [`cursor=${forged}`, 'query.cursor'],
    ['cursor=has%20spaces', 'query.cursor'],
    [`cursor=${cursor}&page=2`, 'query.page'],
  ] as const) {
    const res = await list(caller, query)
    t.same([res.status, res.body.code], [400, 'invalid_request'], `${query}: 400`)
    t.match(res.body.error, field, `${query}: names ${field}`)
  }
})

t.test('given an account of 1,050 seo tasks and 3 cro ones, then a list by seo counts to 1,000 and says so, by cro is exact, and the unfiltered list and the counts stay exact', async (t) => {
  const caller = await aCaller(service.infra, service.url)
  const sessionId = await aSession(caller)
  // Straight into the read models, as the projector leaves ended tasks (a task's 3 events each through the log would take minutes).
  await seedTaskDocuments(service.infra.readModels, caller.account.id, 1050, () => endedTaskDrafts(sessionId, `A seeded brief ${randomUUID()}`), new Date(Date.now() - 86_400_000), 1000)
  for (let i = 0; i < 3; i++) await aTask(caller, sessionId, 'cro')

  const seo = (await list(caller, 'agentType=seo')).body
  t.same([seo.tasks.length, seo.pagination.total, seo.pagination.totalExact, seo.pagination.totalPages], [25, 1000, false, 40], 'seo: at least 1,000')
  const bySession = (await list(caller, `sessionId=${sessionId}`)).body.pagination
  t.same([bySession.total, bySession.totalExact], [1000, false], 'by session: at least 1,000')
  const cro = (await list(caller, 'agentType=cro')).body.pagination
  t.same([cro.total, cro.totalExact], [3, true], 'cro: exactly 3')
  const all = (await list(caller, '')).body.pagination
  t.same([all.total, all.totalExact], [1053, true], 'unfiltered: the stored count, exact')
  const counts = (await caller.api.get<{ counts: Record<string, number> }>('/v1/tasks/counts')).body.counts
  t.same(counts, { pending: 3, running: 0, completed: 1050, failed: 0, total: 1053 }, 'counts by status, exact')
})

import type { CommandStartedEvent } from 'mongodb'
import t from 'tap'
import { tasksProjection } from '../../projections/index.js'
import { DIRECT_SKIP } from '../../projections/queries/task-offset.js'
import { aCaller, aSessionBody, type Caller } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'
import { seedTaskDocuments } from '../helpers/task-documents.js'
import { mixedTaskDrafts } from '../helpers/task-mix.js'

/**
 * GET /v1/tasks?page=N (an offset) finds where page N starts through the index: bounded counts of
 * creation-time ranges, then a skip of at most DIRECT_SKIP tasks, instead of skipping
 * (N - 1) × limit whole tasks. The pages must be the ones a plain skip gives, ties included.
 * And an account's lists go to the store two at a time per API process (src/api/account-gate.ts).
 */
const servers = await startServers(t)
// No worker: seeded tasks stay as seeded. Commands monitored: the test reads what a list sends.
const service = await startTestService(t, servers, { roles: ['api', 'projector'], env: { MONGODB_URL: `${servers.mongoUrl}?monitorCommands=true` } })

interface ListBody {
  tasks: { id: string; status: string }[]
  pagination: { page: number; total: number; totalPages: number }
}

const PER_TIME = 3
const TIMES = 450
const caller: Caller = await aCaller(service.infra, service.url)
const sessions = await Promise.all([1, 2].map(async () => (await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id))
// 1,350 tasks, three created in each millisecond (ties in createdAt, ordered by id; the search
// halves windows of milliseconds, so its bounds fall on the tasks' own times).
const from = new Date(Date.now() - 7 * 86_400_000)
await seedTaskDocuments(service.infra.readModels, caller.account.id, PER_TIME * TIMES, (i) => mixedTaskDrafts(i, sessions), from, 1, PER_TIME)

/** Every task of the account in the list's order (newest first, then id), read whole from the read model. */
async function newestFirst(filter: Record<string, unknown> = {}): Promise<string[]> {
  const docs = await service.infra.readModels
    .collection(tasksProjection)
    .find({ accountId: caller.account.id, ...filter })
    .sort({ createdAt: -1, _id: -1 })
    .toArray()
  return docs.map((doc) => doc._id)
}

const page = async (query: string) => {
  const res = await caller.api.get<ListBody>(`/v1/tasks?${query}`)
  if (res.status !== 200) throw new Error(`${query}: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body.tasks.map((task) => task.id)
}

t.test('given 1,350 tasks, three to a millisecond, when pages are asked by number, then each is the slice a plain skip gives, to past the end', async (t) => {
  const all = await newestFirst()
  t.equal(all.length, PER_TIME * TIMES)
  for (const n of [1, 4, 5, 6, 41, 42, 54, 55, 60]) t.same(await page(`limit=25&page=${n}`), all.slice((n - 1) * 25, n * 25), `page ${n}`)
  for (const n of [3, 17, 34]) t.same(await page(`limit=40&page=${n}`), all.slice((n - 1) * 40, n * 40), `page ${n} of 40`)
})

t.test('given the same tasks, when a deep page is asked with a filter or a created window, then it is the filtered slice', async (t) => {
  const completed = await newestFirst({ status: 'completed' })
  t.ok(completed.length > 500, `${completed.length} completed`)
  for (const n of [9, 20]) t.same(await page(`status=completed&limit=25&page=${n}`), completed.slice((n - 1) * 25, n * 25), `completed, page ${n}`)

  const inSession = await newestFirst({ sessionId: sessions[0] })
  t.same(await page(`sessionId=${sessions[0]}&limit=20&page=12`), inSession.slice(220, 240), 'a session, page 12 of 20')

  // The window cuts 50 creation times off each end: 1,050 tasks; page 30 of 25 starts at 725.
  const createdFrom = new Date(from.getTime() + 50).toISOString()
  const createdTo = new Date(from.getTime() + TIMES - 50).toISOString()
  const windowed = await newestFirst({ createdAt: { $gte: createdFrom, $lt: createdTo } })
  t.equal(windowed.length, PER_TIME * (TIMES - 100))
  t.same(await page(`createdFrom=${createdFrom}&createdTo=${createdTo}&limit=25&page=30`), windowed.slice(725, 750), 'a created window, page 30')
})

t.test('given page 41 by number, then the store is asked to skip at most DIRECT_SKIP tasks, not the 1,000 before it', async (t) => {
  const skips: number[] = []
  const watch = (event: CommandStartedEvent) => {
    const target = event.command.find
    if (event.commandName === 'find' && typeof target === 'string' && target.startsWith(tasksProjection.name)) skips.push(Number(event.command.skip ?? 0))
  }
  service.infra.mongo.on('commandStarted', watch)
  await page('limit=25&page=41')
  service.infra.mongo.off('commandStarted', watch)
  t.ok(skips.length > 0, 'the list read tasks')
  t.ok(Math.max(...skips) <= DIRECT_SKIP, `skips asked: ${skips.join(', ')}`)
})

t.test('given 8 lists of the account sent at once, then at most 2 of its list reads are at the store at any moment (the others wait their turn)', async (t) => {
  const inFlight = new Set<number>()
  let most = 0
  const started = (event: CommandStartedEvent) => {
    const target = event.command.find
    if (event.commandName !== 'find' || typeof target !== 'string' || !target.startsWith(tasksProjection.name)) return
    if (event.command.filter?.accountId !== caller.account.id) return
    inFlight.add(event.requestId)
    most = Math.max(most, inFlight.size)
  }
  const ended = (event: { requestId: number }) => inFlight.delete(event.requestId)
  service.infra.mongo.on('commandStarted', started)
  service.infra.mongo.on('commandSucceeded', ended)
  service.infra.mongo.on('commandFailed', ended)
  // Pages 1 to 4 skip at most 75 tasks: each list sends one find of its page (and a count).
  const pages = await Promise.all([1, 2, 3, 4, 1, 2, 3, 4].map((n) => page(`limit=25&page=${n}&agentType=seo`)))
  service.infra.mongo.off('commandStarted', started)
  service.infra.mongo.off('commandSucceeded', ended)
  service.infra.mongo.off('commandFailed', ended)
  t.ok(
    pages.every((ids) => ids.length === 25),
    'every list answered its page',
  )
  t.ok(most > 0 && most <= 2, `at most 2 at once (${most})`)
})

import type { Route } from 'playwright-core'
import t from 'tap'
import { aContext, launchBrowser, signInWithKey } from '../helpers/browser.js'
import { ensureConsoleBuilt } from '../helpers/console.js'
import { aCaller, aSessionBody } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'

/**
 * What the console does when the service is busy. A 503 with Retry-After is the API's "ask again
 * shortly" (NATS or MongoDB out of reach for a moment, a request that could not be answered in
 * time on a starved machine): its reads ask again as it says instead of showing a person an
 * error. A list whose read models are behind is served as it is after 2 s: the Tasks screen reads
 * again after the last event of a burst. A red suite run on a loaded machine had a Tasks screen
 * with no rows for 30 s.
 */

ensureConsoleBuilt()
const servers = await startServers(t)
const service = await startTestService(t, servers)
const caller = await aCaller(service.infra, service.url)
const sessionId = (await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
const task = (await caller.api.post<{ task: { id: string } }>('/v1/tasks', { sessionId, instruction: 'Audit the landing page' })).body.task
const browser = await launchBrowser(t)
const page = await (await aContext(browser, t)).newPage()
await signInWithKey(page, service.url, caller.key.key)

t.test('given the API answers the Tasks list 503 with Retry-After twice, when the screen opens, then it asks again as told and shows the tasks, no error', async (t) => {
  // Given: the list's early read and the screen's own read are both refused
  const asked: { at: number; answered: number }[] = []
  await page.route(
    (url) => url.pathname === '/v1/tasks',
    async (route: Route) => {
      const refused = asked.filter((a) => a.answered === 503).length < 2
      asked.push({ at: Date.now(), answered: refused ? 503 : 200 })
      if (!refused) return route.continue()
      await route.fulfill({
        status: 503,
        headers: { 'retry-after': '1' },
        contentType: 'application/json',
        body: JSON.stringify({ error: 'service temporarily unavailable, retry later', code: 'unavailable' }),
      })
    },
  )
  t.teardown(() => page.unroute((url) => url.pathname === '/v1/tasks'))

  // When
  await page.goto(`${service.url}/console/tasks`)

  // Then
  await page.locator(`a[href="/console/tasks/${task.id}"]`).first().waitFor()
  t.same(
    asked.map((a) => a.answered),
    [503, 503, 200],
    'the early read and the screen read refused, then the screen read sent again',
  )
  t.equal(await page.getByRole('alert').count(), 0, 'no error shown')
})

t.test('given a 503 without Retry-After, when the Tasks screen reads, then it is not asked again: the screen says why', async (t) => {
  // Given: every list read refused, with nothing saying when to ask again
  let asked = 0
  const isList = (url: URL) => url.pathname === '/v1/tasks'
  await page.route(isList, async (route: Route) => {
    asked++
    await route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ error: 'service temporarily unavailable, retry later', code: 'unavailable' }) })
  })
  t.teardown(() => page.unroute(isList))

  // When
  await page.goto(`${service.url}/console/tasks`)

  // Then
  await page.getByRole('alert').filter({ hasText: 'service temporarily unavailable' }).waitFor()
  t.equal(asked, 2, 'the early read and the screen read, each once')
})

t.test('given a live Tasks screen whose list read after a new task is behind the log, when no other event comes, then it reads again by itself and shows the task', async (t) => {
  // Given: an account whose tasks nobody runs (no worker: TaskCreated is its only event), its Tasks screen live
  const quiet = await startTestService(t, servers, { roles: ['api', 'projector'] })
  const owner = await aCaller(quiet.infra, quiet.url)
  const quietSession = (await owner.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
  const screen = await (await aContext(browser, t)).newPage()
  await signInWithKey(screen, quiet.url, owner.key.key)
  const feedOpen = screen.waitForRequest((request) => new URL(request.url()).pathname === '/v1/events')
  await screen.goto(`${quiet.url}/console/tasks`)
  await feedOpen
  await screen.getByRole('table').waitFor()
  // The list as it is before the task: what a read model behind the log answers the read the event causes.
  const before = await owner.api.get<unknown>('/v1/tasks?limit=25')
  // The list reads the task's event causes (the first after its creation, and any in the 1.5 s after
  // that one) are answered as it was before. From the first such read, not from the creation: on a
  // loaded machine the event's read came after a window that began at the creation.
  let armed = false
  let staleFrom: number | null = null
  const reads: { at: number; stale: boolean }[] = []
  const isList = (url: URL) => url.pathname === '/v1/tasks'
  await screen.route(isList, async (route: Route) => {
    if (armed) staleFrom ??= Date.now()
    const stale = staleFrom !== null && Date.now() < staleFrom + 1500
    reads.push({ at: Date.now(), stale })
    if (!stale) return route.continue()
    await route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(before.body) })
  })

  // When
  armed = true
  const createdAt = Date.now()
  const created = (await owner.api.post<{ task: { id: string } }>('/v1/tasks', { sessionId: quietSession, instruction: 'Audit the pricing page' })).body.task

  // Then
  await screen.locator(`a[href="/console/tasks/${created.id}"]`).waitFor()
  const shownBy = reads.at(-1)
  t.ok(
    reads.some((read) => read.stale),
    `the reads the event caused were answered behind the log (${reads.filter((read) => read.stale).length})`,
  )
  t.ok(shownBy && !shownBy.stale, `a read after them, with no event since, showed the task (${shownBy ? shownBy.at - createdAt : '?'} ms after the creation)`)
})

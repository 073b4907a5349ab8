import type { Route } from 'playwright-core'
import t from 'tap'
import { aContext, launchBrowser, signInWithKey } from '../helpers/browser.js'
import { ensureConsoleBuilt } from '../helpers/console.js'
import { aCaller, aSessionBody } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'

/**
 * A 503 with Retry-After is the API's "ask again shortly" (NATS or MongoDB out of reach for a
 * moment, a request that could not be answered in time on a starved machine). The console's
 * reads ask again as it says instead of showing a person an error: a red suite run on a loaded
 * machine had a Tasks screen with no rows for 30 s.
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
  const [, secondRefusal, retried] = asked
  t.ok(retried && secondRefusal && retried.at - secondRefusal.at >= 900, `sent again after Retry-After (1 s): ${retried && secondRefusal ? retried.at - secondRefusal.at : '?'} ms later`)
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

import { randomUUID } from 'node:crypto'
import t from 'tap'
import { aContext, launchBrowser, signInWithKey } from '../helpers/browser.js'
import { ensureConsoleBuilt } from '../helpers/console.js'
import { aCaller, aSessionBody, endedTaskDrafts } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'
import { seedTaskDocuments } from '../helpers/task-documents.js'

/**
 * A new document of /console/tasks sends its list and counts beside the session check
 * (console/src/early-reads.ts), not after its answer, and reads each once; signed out, those
 * early reads sign nobody out and show nothing.
 */
ensureConsoleBuilt()
const servers = await startServers(t)
const service = await startTestService(t, servers, { roles: ['api', 'projector'] })
const caller = await aCaller(service.infra, service.url)
const sessionId = (await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
await seedTaskDocuments(service.infra.readModels, caller.account.id, 30, () => endedTaskDrafts(sessionId, `A seeded brief ${randomUUID()}`), new Date(Date.now() - 3_600_000), 1000)
const browser = await launchBrowser(t)

interface Sent {
  readonly path: string
  readonly sentAt: number
  readonly answeredAt: number
}

/** The page's requests to the API and the console's session, in the page's clock. */
const requests = async (page: import('playwright-core').Page): Promise<Sent[]> =>
  page.evaluate<Sent[]>(`performance.getEntriesByType('resource')
    .filter((e) => e.initiatorType === 'fetch')
    .map((e) => { const url = new URL(e.name); return { path: url.pathname + url.search, sentAt: e.startTime, answeredAt: e.responseEnd } })`)

t.test('given a signed-in console, when /console/tasks?status=completed is opened as a new document, then its list and counts leave before the session check answers, once each', async (t) => {
  const page = await (await aContext(browser, t)).newPage()
  await signInWithKey(page, service.url, caller.key.key)
  await page.goto(`${service.url}/console/tasks?status=completed`)
  await page.locator('table tbody tr a').first().waitFor()
  const sent = await requests(page)
  const session = sent.find((r) => r.path === '/console/api/session')
  const lists = sent.filter((r) => r.path.startsWith('/v1/tasks?'))
  const counts = sent.filter((r) => r.path === '/v1/tasks/counts')
  t.ok(session, 'the session was checked')
  t.same([lists.length, counts.length], [1, 1], `one list and one counts read: ${sent.map((r) => r.path).join(', ')}`)
  t.match(lists[0]?.path, /status=completed/, 'the list of the URL filters')
  t.ok(lists[0]!.sentAt < session!.answeredAt && counts[0]!.sentAt < session!.answeredAt, 'both sent before the session check answered')
  t.equal(await page.locator('table tbody tr').count(), 25, 'the page of 25 is shown')
})

t.test('given no session, when /console/tasks is opened, then the sign-in shows without a "session has ended" notice', async (t) => {
  const page = await (await aContext(browser, t)).newPage()
  await page.goto(`${service.url}/console/tasks`)
  await page.getByLabel('API key').waitFor()
  t.equal(await page.getByRole('status').count(), 0, 'no notice')
  await page.getByLabel('API key').fill(caller.key.key)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.locator('table tbody tr a').first().waitFor()
  t.equal(await page.locator('table tbody tr').count(), 25, 'signed in, the list is read again and shown')
})

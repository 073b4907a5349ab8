import type { Page, Request } from 'playwright-core'
import t from 'tap'
import { aContext, launchBrowser, signInWithKey } from '../helpers/browser.js'
import { ensureConsoleBuilt } from '../helpers/console.js'
import { aCaller } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'
import { until } from '../helpers/wait.js'

/** Short enough to wait out in a test, long enough that a loaded machine's clicks come well within it. */
const IDLE_MS = 3000

ensureConsoleBuilt()
const servers = await startServers(t)
const service = await startTestService(t, servers, { roles: ['api'], env: { CONSOLE_SESSION_IDLE_MS: String(IDLE_MS) } })
const caller = await aCaller(service.infra, service.url)
const browser = await launchBrowser(t)
const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' })

/**
 * When the page last sent a request that counts as use (an API call a person asked for, not
 * marked background) and was served: the server's idle clock starts at or after it, so a
 * sign-out measured from here is never early by the time a loaded machine takes to click.
 */
function lastUseSeenBy(page: Page): () => number {
  const sentAt = new WeakMap<Request, number>()
  let last = 0
  page.on('request', (request) => {
    const { pathname } = new URL(request.url())
    const api = pathname.startsWith('/v1/') || pathname.startsWith('/console/api/')
    if (api && request.headers()['x-console-background'] !== '1') sentAt.set(request, Date.now())
  })
  page.on('response', (response) => {
    const at = sentAt.get(response.request())
    if (at !== undefined && response.status() < 400) last = Math.max(last, at)
  })
  return () => last
}

t.test('given a console in use, when its screens are opened one after another for three idle timeouts, then it stays signed in', async (t) => {
  const page = await (await aContext(browser, t)).newPage()
  await signInWithKey(page, service.url, caller.key.key)
  const started = Date.now()
  for (let i = 0; Date.now() - started < 3 * IDLE_MS; i++) {
    const [link, heading] = i % 2 === 0 ? ['Agents', 'Agents'] : ['Usage', 'Usage']
    await nav(page).getByRole('link', { name: link, exact: true }).click()
    await page.getByRole('heading', { level: 1, name: heading }).waitFor()
    await until('a moment of reading', () => Date.now() - started > (i + 1) * 500, 5000, 50)
  }
  t.ok(await nav(page).isVisible(), `still signed in ${Date.now() - started} ms later`)
  t.equal(await page.getByLabel('API key').count(), 0, 'no sign-in form')
})

t.test('given a console where someone writes a long draft, when they type for three idle timeouts without sending it, then it stays signed in', async (t) => {
  const page = await (await aContext(browser, t)).newPage()
  await signInWithKey(page, service.url, caller.key.key)
  await nav(page).getByRole('link', { name: 'New task', exact: true }).click()
  const instruction = page.getByLabel('Instruction')
  await instruction.waitFor()
  const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ')
  const started = Date.now()
  for (let i = 0; Date.now() - started < 3 * IDLE_MS; i++) {
    await instruction.press(i % 10 === 9 ? 'Space' : 'a')
    await until('a moment of thinking', () => Date.now() - started > (i + 1) * 300, 5000, 50)
  }
  t.equal(await page.getByLabel('API key').count(), 0, `no sign-in form ${Date.now() - started} ms later`)
  t.match(await instruction.inputValue(), /^a{9} a/, 'the draft is still there')
  t.equal((await fetch(`${service.url}/console/api/session`, { headers: { cookie, 'x-console-background': '1' } })).status, 200, 'the server still holds the session')
})

for (const [screen, path] of [
  ['Tasks in Live mode (its account feed open, re-read on events)', '/tasks'],
  ['Agents (no feed, nothing polled)', '/agents'],
] as const) {
  t.test(`given a console left alone on ${screen}, when the idle timeout passes, then it is back at the sign-in on its own`, async (t) => {
    const page = await (await aContext(browser, t)).newPage()
    const lastUse = lastUseSeenBy(page)
    await signInWithKey(page, service.url, caller.key.key)
    await nav(page)
      .getByRole('link', { name: path === '/tasks' ? 'Tasks' : 'Agents', exact: true })
      .click()
    await page.waitForURL(`**/console${path}`)
    const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ')
    await page.getByLabel('API key').waitFor({ timeout: IDLE_MS + 20_000 })
    const after = Date.now() - lastUse()
    t.comment(`${screen}: back at the sign-in ${after} ms after the last use (idle timeout ${IDLE_MS} ms)`)
    t.ok(after >= IDLE_MS - 200, 'not before the idle timeout')
    t.match(await page.getByRole('status').textContent(), /session has ended/)
    t.equal((await fetch(`${service.url}/console/api/session`, { headers: { cookie } })).status, 401, 'the server has ended the session the cookie named')
  })
}

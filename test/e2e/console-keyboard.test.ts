import type { Locator } from 'playwright-core'
import t, { type Test } from 'tap'
import { aContext, launchBrowser, signInWithKey } from '../helpers/browser.js'
import { ensureConsoleBuilt } from '../helpers/console.js'
import { consoleModel } from '../helpers/console-model.js'
import { focused, focusIsVisible, tabTo } from '../helpers/keyboard.js'
import { languageModelRig, runToEnd, type TaskView } from '../helpers/language-models.js'
import { startServers } from '../helpers/servers.js'
import { until } from '../helpers/wait.js'

ensureConsoleBuilt()
const servers = await startServers(t)
const model = consoleModel()
const rig = await languageModelRig(t, servers, 'openai', model.script, {
  env: { WEBHOOKS_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'), WEBHOOKS_ALLOW_PRIVATE_URLS: 'true', RATE_LIMIT_TASKS_CREATE_PER_MIN: '1000' },
})
const { url } = rig.service
const { api } = rig.caller
// More tasks than one page (25) holds, so that there is a next page to reach. A body refused for a
// passing reason (503 on a loaded machine) is sent again.
let bodies = Array.from({ length: 26 }, (_, i) => ({ sessionId: rig.sessionId, agentType: 'seo', instruction: `Keyword study number ${i}` }))
await until(
  '26 tasks created',
  async () => {
    const { body } = await api.post<{ results: { status: number }[] }>('/v1/tasks/batch', { tasks: bodies })
    bodies = bodies.filter((_, i) => body.results?.[i]?.status !== 201)
    return bodies.length === 0
  },
  60_000,
  500,
)
const browser = await launchBrowser(t)
const page = await (await aContext(browser, t)).newPage()
/** What the page threw or logged as an error: quoted by a step that fails, to say why. */
const pageErrors: string[] = []
page.on('pageerror', (err) => pageErrors.push(err.message))
page.on('console', (message) => message.type() === 'error' && pageErrors.push(message.text()))
await signInWithKey(page, url, rig.caller.key.key)
/** Tab to `target`, check that it shows its focus, then press `key` on it. */
const press = async (target: Locator, key: 'Enter' | 'Space' | 'ArrowDown', t: Test) => {
  await tabTo(page, target)
  t.equal(await focusIsVisible(page), true, `${target.toString()} shows its focus`)
  await page.keyboard.press(key)
}
/** Whether `dialog` shows within 10 s; when not, what the page had and received since `recordInputEvents` is printed. */
const opens = async (dialog: Locator, t: Test) => {
  const shown = await dialog.waitFor({ timeout: 10_000 }).then(
    () => true,
    () => false,
  )
  if (shown) return true
  const dialogs = await page.evaluate('[...document.querySelectorAll("dialog")].map((d) => d.open)')
  const received = await page.evaluate(
    "window.__received.map(([e, at, dialogs]) => [at, e.type, e.key ?? '', e.target?.tagName ?? '', (e.target?.textContent ?? '').slice(0, 20), e.defaultPrevented, dialogs])",
  )
  t.comment(
    `no dialog shown within 10 s: dialogs on the page (open?) ${JSON.stringify(dialogs)}; focus on ${(await focused(page)).text}; page errors ${JSON.stringify(pageErrors)}; received [ms, type, key, target, its text, default prevented, dialogs then] ${JSON.stringify(received)}`,
  )
  return false
}
const fromTop = () => page.evaluate('document.activeElement && document.activeElement.blur()')
const status = () => page.locator('dt:text-is("Status") + dd').textContent()
/** From now on, the page keeps each key, click, focus and dialog event it gets (with the dialogs on the page then; whether a handler prevented its default is read after): what a lost key press says. */
const recordInputEvents = () =>
  page.evaluate(`{
    if (!window.__received) {
      for (const type of ['keydown', 'keypress', 'keyup', 'click', 'cancel', 'close', 'focusin', 'focusout']) {
        window.addEventListener(type, (e) => window.__received.push([e, Math.round(performance.now()), document.querySelectorAll('dialog').length]), true)
      }
    }
    window.__received = []
  }`)

t.test('given Tasks, when filters, paging and a row are used by keyboard only, then each works', async (t) => {
  await until('every task ended', async () => (await api.get<{ counts: { completed: number } }>('/v1/tasks/counts')).body.counts.completed >= 26, 60_000)
  await page.goto(`${url}/console/tasks`)
  await page.locator('tbody tr').first().waitFor()
  await press(page.getByLabel('Status', { exact: true }), 'ArrowDown', t)
  await until('a status in the URL', () => new URL(page.url()).searchParams.get('status') === 'pending')
  await page.keyboard.press('ArrowUp')
  await until('no status in the URL', () => !new URL(page.url()).searchParams.has('status'))
  await page.getByText('Page 1 of 2').waitFor()
  await press(page.getByRole('button', { name: 'Next page' }), 'Enter', t)
  await until('page 2 in the URL', () => new URL(page.url()).searchParams.get('page') === '2')
  await page.getByText('Page 2 of 2').waitFor()
  await fromTop()
  await press(page.getByRole('button', { name: 'Previous page' }), 'Space', t)
  await page.getByText('Page 1 of 2').waitFor()
  await fromTop()
  const row = page.locator('tbody tr a').first()
  const href = await row.getAttribute('href')
  await press(row, 'Enter', t)
  await page.waitForURL(`**${href}`)
  t.pass('a row opens its task')
})

t.test('given a running task, when Cancel task is pressed by keyboard, then it ends; Re-run by keyboard opens the new task', async (t) => {
  const created = await api.post<{ task: TaskView }>('/v1/tasks', { sessionId: rig.sessionId, agentType: 'seo', instruction: 'HANG for the keyboard' })
  await page.goto(`${url}/console/tasks/${created.body.task.id}`)
  await until('running on screen', async () => (await status()) === 'running', 30_000)
  await press(page.getByRole('button', { name: 'Cancel task' }), 'Enter', t)
  await until('failed on screen', async () => (await status()) === 'failed', 30_000)
  await fromTop()
  await press(page.getByRole('button', { name: 'Re-run' }), 'Space', t)
  await page.waitForURL((at) => at.pathname.startsWith('/console/tasks/') && !at.pathname.endsWith(created.body.task.id))
  await page.locator('dt:text-is("Re-run of") + dd a').waitFor()
  await page.getByRole('button', { name: 'Cancel task' }).click()
})

t.test('given Approvals, when Approve is opened by keyboard, then focus stays in the dialog, Escape closes it and focus returns; Confirm approves', async (t) => {
  const task = await runToEnd(api, { sessionId: rig.sessionId, agentType: 'paid-media', instruction: 'PROPOSE for the keyboard' })
  await page.goto(`${url}/console/approvals`)
  const approve = page.getByRole('button', { name: 'Approve' }).first()
  await press(approve, 'Enter', t)
  const dialog = page.getByRole('dialog')
  await dialog.waitFor()
  const seen = new Set<string>()
  for (let i = 0; i < 8; i++) {
    const now = await focused(page)
    t.ok(now.inDialog, `Tab ${i}: the focus is in the dialog (${now.text})`)
    seen.add(now.text)
    await page.keyboard.press(i < 4 ? 'Tab' : 'Shift+Tab')
  }
  t.ok(seen.has('Confirm') && seen.has('Cancel'), `Tab cycled through the dialog's controls: ${[...seen].join(', ')}`)
  await page.keyboard.press('Escape')
  // Gone from the page, not only hidden: the console has taken the close in (a closed <dialog> has no role to find).
  await page.locator('dialog').waitFor({ state: 'detached' })
  const focusBack = () => approve.evaluate((el: { ownerDocument: { activeElement: unknown } }) => el === el.ownerDocument.activeElement)
  t.ok(await until('the focus back on Approve', focusBack, 10_000), 'focus is back on Approve')
  // Then Enter as soon as the dialog has gone, before the browser's late `close` of the old one
  // (sent with the next frame), which used to shut the new one: 4 of 9 rounds on 28 Nov, and the
  // first Enter in 2 of 4 CI runs of the 27th and 1 of 4 at that night's stop, the focus back.
  for (let round = 1; round <= 10; round++) {
    await recordInputEvents()
    await page.keyboard.press('Enter')
    t.ok(await opens(dialog, t), `Enter on Approve, ${round === 1 ? 'the focus back on it' : 'at once after Escape'}, opens the dialog again (round ${round})`)
    if (round === 10) break
    t.ok(await dialog.isVisible(), `the dialog is still open before Escape (round ${round})`)
    await page.keyboard.press('Escape')
    await page.locator('dialog').waitFor({ state: 'detached' })
  }
  await tabTo(page, dialog.getByRole('button', { name: 'Confirm' }))
  t.equal(await focusIsVisible(page), true, 'Confirm shows its focus')
  await page.keyboard.press('Enter')
  await dialog.waitFor({ state: 'detached' })
  await until('approved', async () => (await api.get<{ actions: { status: string }[] }>(`/v1/tasks/${task.id}/actions`)).body.actions[0]?.status !== 'pending_approval')
})

t.test('given New task, when its form is filled in by keyboard only, then Enter on Create task opens the new task', async (t) => {
  await page.goto(`${url}/console/tasks/new`)
  await page
    .getByRole('option', { name: /Growth/ })
    .first()
    .waitFor({ state: 'attached' })
  await press(page.getByLabel('Agent'), 'ArrowDown', t)
  t.not(await page.getByLabel('Agent').inputValue(), 'growth-marketer', 'another agent chosen with the arrow key')
  await press(page.getByRole('button', { name: 'Several sessions at once' }), 'Space', t)
  await press(page.getByRole('group', { name: 'Sessions' }).getByRole('checkbox').first(), 'Space', t)
  await page.getByRole('button', { name: 'Create 1 task', exact: true }).waitFor()
  await tabTo(page, page.getByRole('button', { name: 'Several sessions at once' }), { back: true })
  await page.keyboard.press('Enter')
  await page.getByLabel('Session', { exact: true }).waitFor()
  t.pass('the several-sessions toggle and its checkboxes work by keyboard, and back')
  await tabTo(page, page.getByLabel('Instruction'))
  await page.keyboard.type('Write three subject lines')
  await tabTo(page, page.getByLabel('Priority'))
  await page.keyboard.press('ArrowDown')
  await press(page.getByRole('button', { name: 'Create task' }), 'Enter', t)
  await page.waitForURL(/\/console\/tasks\/[0-9a-f-]{36}$/)
  await until('completed', async () => (await status()) === 'completed', 30_000)
})

t.test("given a session's page, when another autonomy is chosen and saved by keyboard, then it is stored", async (t) => {
  await page.goto(`${url}/console/sessions/${rig.sessionId}`)
  const before = await page.locator('#session-autonomy').textContent()
  await press(page.getByLabel('Change autonomy'), 'ArrowDown', t)
  const chosen = await page.getByLabel('Change autonomy').inputValue()
  t.not(chosen, before, 'another autonomy chosen')
  await press(page.getByRole('button', { name: 'Save autonomy' }), 'Enter', t)
  await until('stored', async () => (await api.get<{ session: { autonomy: string } }>(`/v1/sessions/${rig.sessionId}`)).body.session.autonomy === chosen)
  await until('on screen', async () => (await page.locator('#session-autonomy').textContent()) === chosen)
})

t.test('given Webhooks, when one is created and deleted by keyboard, then the secret shows and the dialog deletes it', async (t) => {
  await page.goto(`${url}/console/webhooks`)
  await page.getByText('No webhooks.').waitFor()
  await tabTo(page, page.getByLabel('Webhook URL'))
  await page.keyboard.type('http://127.0.0.1:9/hooks/keyboard')
  await page.keyboard.press('Enter')
  await page
    .getByRole('status')
    .getByText(/whsec_/)
    .waitFor()
  await fromTop()
  await press(page.getByRole('button', { name: 'Delete' }), 'Enter', t)
  await page.getByRole('dialog').waitFor()
  await tabTo(page, page.getByRole('dialog').getByRole('button', { name: 'Confirm' }))
  await page.keyboard.press('Enter')
  await page.getByText('No webhooks.').waitFor()
  t.same((await api.get<{ webhooks: unknown[] }>('/v1/webhooks')).body.webhooks, [])
})

t.test('given any screen, when the skip link and Sign out are used by keyboard, then the focus skips to the content and Sign out signs out', async (t) => {
  await page.goto(`${url}/console/agents`)
  await page.getByRole('cell', { name: 'seo', exact: true }).waitFor()
  await page.keyboard.press('Tab')
  t.equal((await focused(page)).text, 'Skip to content', 'the first Tab reaches the skip link')
  t.equal(await focusIsVisible(page), true, 'and shows it')
  await page.keyboard.press('Enter')
  await page.keyboard.press('Tab')
  t.equal(await page.evaluate<boolean>('!!document.activeElement.closest("main")'), true, 'the next Tab is inside the content, past the navigation')
  for (const link of ['Tasks', 'Usage']) {
    await fromTop()
    await press(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: link, exact: true }), 'Enter', t)
    await page.getByRole('heading', { level: 1, name: link }).waitFor()
  }
  await press(page.getByLabel('Month'), 'ArrowDown', t)
  await until('a previous month in the URL', () => new URL(page.url()).searchParams.has('month'))
  await fromTop()
  await press(page.getByRole('button', { name: 'Sign out' }), 'Enter', t)
  await page.getByLabel('API key').waitFor()
})

import t from 'tap'
import { accessibilityViolations, aContext, launchBrowser, screenshotPath, signInWithKey } from '../helpers/browser.js'
import { ensureConsoleBuilt } from '../helpers/console.js'
import { consoleModel } from '../helpers/console-model.js'
import { languageModelRig, runToEnd, type TaskView } from '../helpers/language-models.js'
import { aCaller, aSessionBody } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { until } from '../helpers/wait.js'

ensureConsoleBuilt()
const servers = await startServers(t)
const model = consoleModel()
const rig = await languageModelRig(t, servers, 'openai', model.script)
const { url } = rig.service
const { api } = rig.caller
const browser = await launchBrowser(t)
const page = await (await aContext(browser, t)).newPage()
await signInWithKey(page, url, rig.caller.key.key)
const fact = (name: string) => page.locator(`dt:text-is("${name}") + dd`)

t.test('given an ended task, when Re-run is pressed, then the new task opens, says what it re-runs, and the first lists it', async (t) => {
  const first = await runToEnd(api, { sessionId: rig.sessionId, agentType: 'seo', instruction: 'Audit the pricing page' })
  await page.goto(`${url}/console/tasks/${first.id}`)
  await until('ended on screen', async () => (await fact('Status').textContent()) === 'completed')
  await page.getByRole('button', { name: 'Re-run' }).click()
  await page.waitForURL((at) => /\/console\/tasks\/[0-9a-f-]{36}$/.test(at.pathname) && !at.pathname.endsWith(first.id))
  const rerun = new URL(page.url()).pathname.split('/').at(-1) ?? ''
  await page.getByRole('heading', { name: `Task ${rerun}` }).waitFor()
  t.equal(await fact('Re-run of').getByRole('link').getAttribute('href'), `/console/tasks/${first.id}`, 'links the task it re-runs')
  await until('the re-run completed on screen', async () => (await fact('Status').textContent()) === 'completed', 30_000)
  const { body } = await api.get<{ task: TaskView & { rerunOf: string; instruction: string } }>(`/v1/tasks/${rerun}`)
  t.equal(body.task.rerunOf, first.id, 'the API agrees')
  t.equal(body.task.instruction, 'Audit the pricing page', 'the same brief')
  await fact('Re-run of').getByRole('link').click()
  await page.getByRole('heading', { name: `Task ${first.id}` }).waitFor()
  await fact('Re-runs').getByRole('link', { name: rerun }).waitFor()
  t.same(await accessibilityViolations(page), [], 'a task with re-runs: no violation')
})

t.test('given New task, when one instruction is sent for several sessions at once, then each gets a result row: a created link or why not', async (t) => {
  // Half of one task's reservation (TASK_RESERVATION_USD): the first body is admitted, and leaves nothing for the second (402).
  const tight = await aCaller(rig.infra, url, { monthlyBudgetUsd: 0.005 })
  const sessions: string[] = []
  for (const name of ['North store', 'South store']) {
    const created = await tight.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody({ name }))
    sessions.push(created.body.session.id)
  }
  const other = await (await aContext(browser, t)).newPage()
  await signInWithKey(other, url, tight.key.key)
  await other.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'New task' }).click()
  await other.getByLabel('Agent').selectOption('organic-social')
  await other.getByRole('button', { name: 'Several sessions at once' }).click()
  const group = other.getByRole('group', { name: 'Sessions' })
  for (const name of ['North store', 'South store']) await group.getByLabel(name, { exact: false }).check()
  await other.getByLabel('Instruction').fill('Plan the winter posts GATE-batch')
  t.same(await accessibilityViolations(other), [], 'new task for several sessions: no violation')
  await other.getByRole('button', { name: 'Create 2 tasks' }).click()
  const results = other.getByRole('region', { name: 'Batch results' })
  const rows = results.getByRole('listitem')
  await until('two result rows', async () => (await rows.count()) === 2)
  const [first, second] = await rows.allInnerTexts()
  t.match(first, /^(North|South) store: task [0-9a-f-]{36} created$/, 'the first body created')
  t.match(second, /^(North|South) store: not created \(402 [a-z_]+\): /, 'the second refused, with its reason')
  await other.screenshot({ path: screenshotPath('new-task-batch'), fullPage: true })
  const created = await until('the tasks in the API', async () => {
    const { body } = await tight.api.get<{ tasks: { id: string; sessionId: string }[] }>('/v1/tasks')
    return body.tasks.length === 1 && body.tasks
  })
  t.ok(sessions.includes(created[0]?.sessionId ?? ''), 'created in one of the sessions chosen')
  t.match(first, created[0]?.id ?? 'none', 'the row links the task the API has')
  await rows.first().getByRole('link').click()
  await other.getByRole('heading', { name: `Task ${created[0]?.id}` }).waitFor()
  model.openGate('batch')
})

t.test('given the Usage screen, when a previous month is chosen, then the URL keeps it and that month is shown; only days with spend are listed', async (t) => {
  type UsageView = { usage: { month: string; byDay: { date: string; spentUsd: number; tasks: number }[] } }
  await runToEnd(api, { sessionId: rig.sessionId, agentType: 'cro', instruction: 'Check the checkout funnel' })
  const body = await until('the ended task in the split by day', async () => {
    const usage = (await api.get<UsageView>('/v1/usage')).body
    return usage.usage.byDay.some((d) => d.tasks > 0) && usage
  })
  const spendDays = body.usage.byDay.filter((d) => d.spentUsd > 0 || d.tasks > 0).map((d) => d.date)
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Usage', exact: true }).click()
  const byDay = page.getByRole('region', { name: 'Spend by day' })
  await byDay.getByRole('cell', { name: spendDays[0] ?? 'none' }).waitFor()
  t.same(await byDay.locator('tbody td:first-child').allInnerTexts(), spendDays, 'only the days with spend')
  t.ok(spendDays.length < body.usage.byDay.length || body.usage.byDay.length === 1, 'fewer rows than days')
  const now = new Date()
  const previous = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)).toISOString().slice(0, 7)
  const month = await page.getByLabel('Month').boundingBox()
  const main = await page.getByRole('main').boundingBox()
  t.ok(month && main && month.width < main.width / 3, `the Month select is as wide as its content (${month?.width} px of ${main?.width} at 1280 px)`)
  await page.getByLabel('Month').selectOption(previous)
  await until('the month in the URL', () => new URL(page.url()).searchParams.get('month') === previous)
  await page.getByText(`${previous}: $0.00 spent`).waitFor()
  t.pass(`${previous} shown, as GET /v1/usage?month=${previous} has it`)
  await page.getByText('No spend on any day of this month.').waitFor()
  await page.reload()
  t.equal(await page.getByLabel('Month').inputValue(), previous, 'kept across a reload')
  t.same(await accessibilityViolations(page), [], 'usage of a past month: no violation')
})

import t from 'tap'
import { accessibilityViolations, aContext, launchBrowser, screenshotPath, signInWithKey } from '../helpers/browser.js'
import { ensureConsoleBuilt } from '../helpers/console.js'
import { consoleModel } from '../helpers/console-model.js'
import { languageModelRig, runToEnd } from '../helpers/language-models.js'
import { startServers } from '../helpers/servers.js'

const WIDTH = 390

ensureConsoleBuilt()
const servers = await startServers(t)
const model = consoleModel()
const rig = await languageModelRig(t, servers, 'openai', model.script, {
  env: { WEBHOOKS_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'), WEBHOOKS_ALLOW_PRIVATE_URLS: 'true' },
})
const { url } = rig.service
const { api } = rig.caller
const browser = await launchBrowser(t)
// Something on every screen: ended tasks (one with a proposed action awaiting approval) and a webhook.
const task = await runToEnd(api, { sessionId: rig.sessionId, agentType: 'email-marketing', instruction: 'Draft the winter newsletter for hobbyist rocketeers in North America' })
const proposing = await runToEnd(api, { sessionId: rig.sessionId, agentType: 'organic-social', instruction: 'PROPOSE a post about the launch window' })
await api.post('/v1/webhooks', { url: 'http://127.0.0.1:9/hooks/a-rather-long-path/for-the-narrow-screen' })
const phone = await (await aContext(browser, t, { width: WIDTH })).newPage()
await signInWithKey(phone, url, rig.caller.key.key)

const SCREENS = [
  ['tasks', '/tasks', 'Tasks'],
  ['task', `/tasks/${task.id}`, `Task ${task.id}`],
  ['new-task', '/tasks/new', 'New task'],
  ['sessions', '/sessions', 'Sessions'],
  ['session', `/sessions/${rig.sessionId}`, 'Session Spring launch'],
  ['approvals', '/approvals', 'Approvals'],
  ['webhooks', '/webhooks', 'Webhooks'],
  ['usage', '/usage', 'Usage'],
  ['agents', '/agents', 'Agents'],
] as const

for (const [name, path, heading] of SCREENS) {
  t.test(`given the ${name} screen at ${WIDTH} px, then nothing scrolls sideways and axe finds no violation`, async (t) => {
    await phone.goto(`${url}/console${path}`)
    await phone.getByRole('heading', { level: 1, name: heading }).waitFor()
    if (name === 'tasks') await phone.locator(`a[href="/console/tasks/${proposing.id}"]`).waitFor()
    if (name === 'task') await phone.getByRole('button', { name: 'Re-run' }).waitFor()
    if (name === 'approvals') await phone.getByRole('button', { name: 'Approve' }).waitFor()
    if (name === 'webhooks') await phone.getByRole('button', { name: 'Delete' }).waitFor()
    if (name === 'agents' || name === 'sessions') await phone.locator('tbody tr').first().waitFor()
    t.notMatch((await phone.locator('main').textContent()) ?? '', /\[object \w+\]|\bundefined\b|\bNaN\b/, 'no value shown unrendered')
    if (name === 'agents') t.match((await phone.locator('main').textContent()) ?? '', 'Technical SEO', 'subspecialties by name')
    const width = await phone.evaluate<number>('document.documentElement.scrollWidth')
    t.ok(width <= WIDTH, `document ${width} px wide`)
    t.same(await accessibilityViolations(phone), [], `${name} at ${WIDTH} px: no violation`)
    await phone.screenshot({ path: screenshotPath(`${name}-390px`), fullPage: true })
  })
}

t.test(`given the Tasks table at ${WIDTH} px, then its rows are cards and it keeps its column headers for assistive technology`, async (t) => {
  await phone.goto(`${url}/console/tasks`)
  await phone.locator('tbody tr').first().waitFor()
  for (const header of ['Status', 'Agent', 'Created']) t.equal(await phone.getByRole('columnheader', { name: header, exact: true }).count(), 1, `column header ${header}`)
  t.equal((await phone.getByRole('cell', { name: 'email-marketing' }).count()) > 0, true, 'cells are still cells')
  const table = await phone.locator('table').boundingBox()
  t.ok(table && table.width <= WIDTH, `the table is ${table?.width} px wide`)
  const region = await phone.getByRole('region', { name: 'Tasks' }).evaluate((el: { scrollWidth: number; clientWidth: number }) => el.scrollWidth <= el.clientWidth)
  t.ok(region, 'and does not scroll sideways inside its region either')
})

t.test(`given the approval dialog at ${WIDTH} px, then it fits`, async (t) => {
  await phone.goto(`${url}/console/approvals`)
  await phone.getByRole('button', { name: 'Approve' }).click()
  await phone.getByRole('dialog').waitFor()
  t.ok((await phone.evaluate<number>('document.documentElement.scrollWidth')) <= WIDTH, 'no sideways scroll')
  const box = await phone.getByRole('dialog').boundingBox()
  t.ok(box && box.x >= 0 && box.x + box.width <= WIDTH, `the dialog is inside the screen (${box?.x} + ${box?.width})`)
  await phone.screenshot({ path: screenshotPath('approval-dialog-390px') })
  await phone.keyboard.press('Escape')
})

import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { aContext, launchBrowser, signInWithKey } from '../helpers/browser.js'
import { ensureConsoleBuilt } from '../helpers/console.js'
import { consoleModel } from '../helpers/console-model.js'
import { languageModelRig, runToEnd } from '../helpers/language-models.js'
import { aCaller, aSessionBody } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { until } from '../helpers/wait.js'

ensureConsoleBuilt()
const servers = await startServers(t)
const model = consoleModel()
const rig = await languageModelRig(t, servers, 'openai', model.script)
const { url } = rig.service
const browser = await launchBrowser(t)

/** A server on loopback that counts every request: an image or frame that loads shows up here. */
const beaconHits: string[] = []
const beacon = createServer((req, res) => {
  beaconHits.push(req.url ?? '')
  res.writeHead(200, { 'content-type': 'image/png' }).end()
})
await new Promise<void>((resolve) => beacon.listen(0, '127.0.0.1', resolve))
t.teardown(() => new Promise<void>((resolve) => beacon.close(() => resolve())))
const beaconUrl = `http://127.0.0.1:${(beacon.address() as AddressInfo).port}`

const PAYLOADS = [
  `<script>window.xss = 'script'</script>`,
  `<img src="${beaconUrl}/img.png" onerror="window.xss = 'img'">`,
  `[click me](javascript:window.xss='markdown-link')`,
  `<a href="javascript:window.xss='a'">open</a>`,
  `![beacon](${beaconUrl}/markdown.png)`,
  `<iframe src="${beaconUrl}/frame"></iframe>`,
  `<svg onload="window.xss='svg'"></svg>`,
].join('\n')

t.test('given script, img onerror, javascript: links and image beacons in a brief, an answer and company data, then none runs or loads and all show as text', async (t) => {
  const session = await rig.caller.api.post<{ session: { id: string } }>(
    '/v1/sessions',
    aSessionBody({ name: `<img src="${beaconUrl}/session.png" onerror="window.xss='session'">`, companyName: PAYLOADS.slice(0, 200) }),
  )
  t.equal(session.status, 201)
  const task = await runToEnd(rig.caller.api, { sessionId: session.body.session.id, agentType: 'paid-media', instruction: `Write the post. ANSWER:${PAYLOADS}` })
  t.equal(task.status, 'completed')
  t.match(task.result, /<script>/, 'the model answered with the payloads')

  const page = await (await aContext(browser, t)).newPage()
  const dialogs: string[] = []
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message())
    void dialog.dismiss()
  })
  await signInWithKey(page, url, rig.caller.key.key)
  for (const path of [`/console/tasks/${task.id}`, '/console/sessions', `/console/sessions/${session.body.session.id}`, '/console/tasks']) {
    await page.goto(`${url}${path}`)
    await page.getByRole('heading', { level: 1 }).waitFor()
    if (path.includes('/tasks/')) await page.locator('pre.text', { hasText: 'window.xss' }).first().waitFor()
    t.equal(await page.evaluate<unknown>('window.xss'), undefined, `${path}: no payload ran`)
    t.equal(await page.locator('main img, main iframe, main svg, main script').count(), 0, `${path}: no element made from the text`)
    t.equal(await page.locator('a[href^="javascript:"]').count(), 0, `${path}: no javascript: link`)
  }
  await page.goto(`${url}/console/tasks/${task.id}`)
  await page.getByText(`<script>window.xss = 'script'</script>`).first().waitFor()
  t.pass('the answer shows the markup as text')
  t.same(dialogs, [], 'no alert or confirm')
  t.same(beaconHits, [], 'no beacon loaded')
})

t.test('given two accounts signed in side by side, then neither sees the other’s tasks, even by id', async (t) => {
  const other = await aCaller(rig.infra, url)
  const otherSession = await other.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody({ name: 'Other account session' }))
  const theirs = await runToEnd(other.api, { sessionId: otherSession.body.session.id, agentType: 'paid-media', instruction: 'Their own plan' })
  const ours = await runToEnd(rig.caller.api, { sessionId: rig.sessionId, agentType: 'paid-media', instruction: 'Our own plan' })

  const mine = await (await aContext(browser, t)).newPage()
  const their = await (await aContext(browser, t)).newPage()
  await signInWithKey(mine, url, rig.caller.key.key)
  await signInWithKey(their, url, other.key.key)
  await mine.locator(`a[href="/console/tasks/${ours.id}"]`).waitFor()
  await their.locator(`a[href="/console/tasks/${theirs.id}"]`).waitFor()
  t.equal(await mine.locator(`a[href="/console/tasks/${theirs.id}"]`).count(), 0, 'their task is not in my list')
  t.equal(await their.locator(`a[href="/console/tasks/${ours.id}"]`).count(), 0, 'mine is not in theirs')

  await mine.goto(`${url}/console/tasks/${theirs.id}`)
  await mine.getByRole('alert').waitFor()
  t.match(await mine.getByRole('alert').textContent(), /not found|no such/i)
  t.equal(await mine.getByRole('heading', { name: `Task ${theirs.id}` }).count(), 0, 'nothing of it is shown')
  await mine.goto(`${url}/console/sessions`)
  await mine.getByRole('heading', { level: 1, name: 'Sessions' }).waitFor()
  await until('the sessions table', async () => (await mine.locator('tbody tr').count()) > 0)
  t.equal(await mine.getByText('Other account session').count(), 0, 'nor their sessions')
})

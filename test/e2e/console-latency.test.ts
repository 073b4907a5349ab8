import type { Page } from 'playwright-core'
import t from 'tap'
import { eventSubject } from '../../src/infra/nats/subjects.js'
import { aContext, launchBrowser, signInWithKey } from '../helpers/browser.js'
import { ensureConsoleBuilt } from '../helpers/console.js'
import { consoleModel } from '../helpers/console-model.js'
import { languageModelRig, type TaskView } from '../helpers/language-models.js'
import { startServers } from '../helpers/servers.js'
import { until } from '../helpers/wait.js'

/** How many tasks are measured; the figures are printed, not asserted (the machine is shared). */
const ROUNDS = 5
/** Generous: only that the change arrives at all without a reload, on a loaded machine. */
const DEADLINE_MS = 30_000

ensureConsoleBuilt()
const servers = await startServers(t)
const model = consoleModel()
const rig = await languageModelRig(t, servers, 'openai', model.script)
const { url } = rig.service
const browser = await launchBrowser(t)
const context = await aContext(browser, t)
const [taskPage, listPage] = [await context.newPage(), await context.newPage()]
await signInWithKey(taskPage, url, rig.caller.key.key)
await listPage.goto(`${url}/console/tasks`)
await listPage.getByRole('navigation', { name: 'Main' }).waitFor()
await listPage.evaluate('window.notReloaded = true')

/**
 * Records in the page (its Date.now(), the same clock as the test's) the first moment the text
 * of `selector` is `want`, through a MutationObserver: no polling between the change and the record.
 */
function watchFor(page: Page, selector: string, want: string): Promise<void> {
  const args = JSON.stringify({ selector, want })
  return page.evaluate(`(() => {
    const { selector, want } = ${args}
    window.seenAt = window.seenAt || {}
    const check = () => {
      const el = document.querySelector(selector)
      if (el && el.textContent === want && !window.seenAt[selector + want]) { window.seenAt[selector + want] = Date.now(); observer.disconnect() }
    }
    const observer = new MutationObserver(check)
    observer.observe(document.body, { subtree: true, childList: true, characterData: true })
    check()
  })()`)
}
const seenAt = (page: Page, selector: string, want: string) => page.evaluate<number | undefined>(`(window.seenAt || {})[${JSON.stringify(selector + want)}]`)

/** When the event reaches NATS subscribers: the moment JetStream took the append. */
function appended(accountId: string, taskId: string, type: string): Promise<number> {
  return new Promise((resolve) => {
    const subscription = rig.infra.nc.subscribe(eventSubject('task', accountId, taskId, type), { max: 1, callback: () => resolve(Date.now()) })
    t.teardown(() => subscription.unsubscribe())
  })
}

const summary = (ms: number[]) => {
  const sorted = [...ms].sort((a, b) => a - b)
  return `median ${sorted[Math.floor(sorted.length / 2)]} ms, max ${sorted.at(-1)} ms (${ms.join(', ')})`
}

t.test(`given a task page and the Live tasks list open, when a task's TaskCompleted is appended, then both show completed; the delays are printed`, async (t) => {
  const onTaskPage: number[] = []
  const onList: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    const created = await rig.caller.api.post<{ task: TaskView }>('/v1/tasks', { sessionId: rig.sessionId, agentType: 'seo', instruction: `Measure round ${round} GATE-r${round}` })
    const id = created.body.task.id
    await taskPage.goto(`${url}/console/tasks/${id}`)
    const pageStatus = 'dl.facts dd[aria-live] .status'
    const rowStatus = `tr:has(a[href="/console/tasks/${id}"]) .status`
    await until(
      'running on the task page and in the list',
      async () => (await taskPage.locator(pageStatus).textContent()) === 'running' && (await listPage.locator(rowStatus).textContent()) === 'running',
      DEADLINE_MS,
    )
    await Promise.all([watchFor(taskPage, pageStatus, 'completed'), watchFor(listPage, rowStatus, 'completed')])
    const completed = appended(rig.caller.account.id, id, 'TaskCompleted')
    model.openGate(`r${round}`)
    const appendedAt = await completed
    const [shownOnPage, shownInList] = await until(
      'completed on both screens',
      async () => {
        const both = [await seenAt(taskPage, pageStatus, 'completed'), await seenAt(listPage, rowStatus, 'completed')]
        return both.every((at) => at !== undefined) && (both as number[])
      },
      DEADLINE_MS,
    )
    onTaskPage.push((shownOnPage ?? 0) - appendedAt)
    onList.push((shownInList ?? 0) - appendedAt)
  }
  t.comment(`TaskCompleted appended → "completed" on the task page: ${summary(onTaskPage)}`)
  t.comment(`TaskCompleted appended → "completed" in the Live tasks list: ${summary(onList)}`)
  t.comment(`within 1 s: task page ${onTaskPage.filter((ms) => ms <= 1000).length}/${ROUNDS}, list ${onList.filter((ms) => ms <= 1000).length}/${ROUNDS}`)
  t.ok(
    [...onTaskPage, ...onList].every((ms) => ms < DEADLINE_MS),
    'every change arrived',
  )
  t.equal(await listPage.evaluate<boolean>("'notReloaded' in window"), true, 'the list page was never reloaded')
})

import { randomUUID } from 'node:crypto'
import t from 'tap'
import type { Test } from 'tap'
import { LIVE_VIEW_CONSUMER_PREFIX } from '../../projections/engine/live-view.js'
import { accountSpendProjection, LiveView, spendId, type AccountSpendDoc } from '../../projections/index.js'
import type { AppContext } from '../../src/app-context.js'
import { Task, type TaskEvent } from '../../src/domain/tasks/task.js'
import { anAccount, endedTaskDrafts } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { connectTestInfra } from '../helpers/service.js'

/** A spend view of its own, as the composition root builds one (src/app-context.ts). */
function aSpendView(infra: AppContext): LiveView<AccountSpendDoc> {
  return new LiveView<AccountSpendDoc>(infra, accountSpendProjection, {
    eventsAfter: (id, afterSeq) => infra.events.readAccountAfter('task', id.split(':')[0] ?? '', afterSeq),
  })
}

/** `expectedVersion`: the stream sequence of the task's last event (0 for a new task). */
async function appendToTask(infra: AppContext, accountId: string, taskId: string, drafts: TaskEvent[], expectedVersion: number): Promise<void> {
  const metadata = { correlationId: randomUUID(), causationId: null, keyId: null }
  await infra.events.append(Task, { accountId, aggregateId: taskId }, drafts, { expectedVersion, metadata, now: new Date() })
}

/** What the view's consumer has delivered so far (the server's count). */
async function deliveredToTheView(infra: AppContext): Promise<number> {
  for await (const info of infra.jsm.consumers.list('MATS_TASKS')) {
    if (info.name.startsWith(`${LIVE_VIEW_CONSUMER_PREFIX}account_spend_`)) return info.delivered.consumer_seq
  }
  throw new Error('no spend view consumer on the server')
}

/** A spend view following the task stream, with one account's document loaded. */
async function aFollowingSpendView(t: Test) {
  const servers = await startServers(t)
  const infra = await connectTestInfra(t, servers)
  const account = await anAccount(infra, { monthlyBudgetUsd: 1 })
  const view = aSpendView(infra)
  t.teardown(() => view.stop())
  const docId = spendId(account.id, new Date().toISOString().slice(0, 7))
  await view.get(docId, await infra.events.head('task'), 30_000)
  return { infra, account, view, docId }
}

t.test('given the spend view, when a task is created, started and completed, then its consumer is delivered the created and the completed only, and the spend counts it', async (t) => {
  const { infra, account, view, docId } = await aFollowingSpendView(t)

  await appendToTask(infra, account.id, randomUUID(), endedTaskDrafts(randomUUID(), 'Plan the launch posts'), 0)

  const { doc, caughtUp } = await view.get(docId, await infra.events.head('task'), 30_000)
  t.ok(caughtUp, 'the view reached the fence taken after the task')
  t.match(doc, { tasksCreated: 1, tasksFinished: 1 })
  t.equal(await deliveredToTheView(infra), 2, 'TaskStarted is not delivered to it')
})

t.test(
  'given a TaskStarted stored after the last event the view applies, when a check takes the stream end as its fence, then the view is caught up to it, not waiting for an event it is never delivered',
  async (t) => {
    const { infra, account, view, docId } = await aFollowingSpendView(t)
    const [created, started] = endedTaskDrafts(randomUUID(), 'Draft the newsletter')
    if (!created || !started) throw new Error('a created and a started draft expected')
    const taskId = randomUUID()
    await appendToTask(infra, account.id, taskId, [created], 0)
    await appendToTask(infra, account.id, taskId, [started], await infra.events.head('task'))

    const { doc, caughtUp } = await view.get(docId, await infra.events.head('task'), 20_000)

    t.ok(caughtUp, 'caught up')
    t.match(doc, { tasksCreated: 1, reservedMicros: 10_000 }, 'as of the TaskCreated')
  },
)

t.test('given tasks appended one after the other, when each is checked as soon as its append is acknowledged, then every check counts every task before it', async (t) => {
  const { infra, account, view, docId } = await aFollowingSpendView(t)
  const [created, started] = endedTaskDrafts(randomUUID(), 'Write the post')
  if (!created || !started) throw new Error('a created and a started draft expected')
  const counted: number[] = []

  for (let i = 0; i < 40; i++) {
    const taskId = randomUUID()
    await appendToTask(infra, account.id, taskId, [created], 0)
    // Every other task ends on a message the view is never delivered.
    if (i % 2 === 1) await appendToTask(infra, account.id, taskId, [started], await infra.events.head('task'))
    const { doc, caughtUp } = await view.get(docId, await infra.events.head('task'), 20_000)
    if (!caughtUp) t.fail(`check ${i + 1} not caught up`)
    counted.push(doc?.tasksCreated ?? 0)
  }

  t.same(
    counted,
    counted.map((_, i) => i + 1),
    'each check saw its own task and all before it',
  )
})

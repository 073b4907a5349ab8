import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import type { AppContext } from '../../src/app-context.js'
import type { ApiClient, ApiResponse } from '../helpers/http.js'
import { heldBack } from '../helpers/decisions.js'
import { aCaller } from '../helpers/mothers.js'
import { retryAfterMs } from '../helpers/retry-after.js'
import { taskHistories } from '../helpers/task-log.js'
import { aTaskThatIs } from '../helpers/task-histories.js'
import { aSession, heldNatsRig } from '../helpers/held-nats-rig.js'
import { until } from '../helpers/wait.js'

/**
 * ADR 0046 for the other creates: a re-run, whose TaskCreated and the original's
 * TaskRerunCreated are one atomic batch, answered 503 while its commit is held back by a
 * "paused" NATS and stored afterwards; and a batch of bodies, one of which is answered 503 in
 * its results the same way. A retry with the key gets what was stored; without it, the
 * identical-task 409 names the task stored after the 503, never a second one.
 */

interface TaskView {
  id: string
  rerunOf?: string | null
}
interface Reply {
  task?: TaskView
  session?: { id: string }
  code?: string
  existingTaskId?: string
  results?: { status: number; task?: TaskView; code?: string; existingTaskId?: string }[]
}

const { proxy, service, reader } = await heldNatsRig(t)

/** The account's tasks as the log holds them, each with the task it re-runs (null if none). */
async function tasksOf(infra: AppContext, accountId: string): Promise<{ id: string; rerunOf: string | null }[]> {
  return [...(await taskHistories(infra)).entries()]
    .filter(([, events]) => events[0]?.accountId === accountId)
    .map(([id, events]) => ({ id, rerunOf: (events[0]?.data as { rerunOf?: string } | undefined)?.rerunOf ?? null }))
}

/** Sends the request while NATS holds back what the service sends from `marker` on, and lets it through once answered. */
async function answeredWhileHeld(marker: string, send: () => Promise<ApiResponse<Reply>>): Promise<ApiResponse<Reply>> {
  const held = proxy.holdFrom(marker)
  const sending = send()
  await heldBack(held, sending)
  const answered = await sending
  proxy.release()
  return answered
}

/** The same request again, as often as 409 idempotency_key_in_flight asks (while the first is settled). */
function onceSettled(send: () => Promise<ApiResponse<Reply>>): Promise<ApiResponse<Reply>> {
  return until(
    'a retry answered other than 409 in flight',
    async () => {
      const res = await send()
      return res.body.code === 'idempotency_key_in_flight' ? undefined : res
    },
    20_000,
    250,
  )
}

async function anEndedTask(api: ApiClient, accountId: string): Promise<string> {
  return aTaskThatIs(reader, accountId, await aSession(api), 'completed', `Write the autumn newsletter ${randomUUID()}`)
}

// The re-run's batch is held from its commit (the TaskRerunCreated): its TaskCreated is already with the server, the batch not yet stored.
const RERUN_COMMIT = 'TaskRerunCreated'

t.test('given a re-run answered 503 whose batch is stored afterwards, when it is sent again with its key after Retry-After, then it gets 201 with that re-run and no second one exists', async (t) => {
  const { api, account } = await aCaller(service.infra, service.url)
  const original = await anEndedTask(api, account.id)
  const key = randomUUID()
  const rerun = () => api.withoutRetry().post<Reply>(`/v1/tasks/${original}/rerun`, undefined, { 'idempotency-key': key })

  const first = await answeredWhileHeld(RERUN_COMMIT, rerun)
  t.equal(first.status, 503, `the commit was not acknowledged in time (${JSON.stringify(first.body)})`)
  const stored = await until('the held re-run stored', async () => (await tasksOf(reader, account.id)).find((task) => task.rerunOf === original)?.id, 20_000)

  // When: what the 503 asks, the same request after Retry-After.
  await sleep(retryAfterMs(first.headers.get('retry-after')) ?? 2000)
  const retried = await onceSettled(rerun)

  t.equal(retried.status, 201, `the retry gets the re-run (${JSON.stringify(retried.body)})`)
  t.equal(retried.body.task?.id, stored, 'the re-run stored after the 503')
  t.equal(retried.body.task?.rerunOf, original)
  t.equal(retried.headers.get('idempotent-replayed'), 'true', 'answered from the key, not executed again')
  t.equal(retried.headers.get('location'), `/v1/tasks/${stored}`)
  t.same((await tasksOf(reader, account.id)).filter((task) => task.rerunOf === original).length, 1, 'exactly one re-run stored')
})

t.test('given a re-run without a key answered 503 whose batch is stored afterwards, when it is sent again, then the 409 names that re-run and no second one exists', async (t) => {
  const { api, account } = await aCaller(service.infra, service.url)
  const original = await anEndedTask(api, account.id)
  const rerun = () => api.withoutRetry().post<Reply>(`/v1/tasks/${original}/rerun`, undefined)

  const first = await answeredWhileHeld(RERUN_COMMIT, rerun)
  t.equal(first.status, 503)
  const stored = await until('the held re-run stored', async () => (await tasksOf(reader, account.id)).find((task) => task.rerunOf === original)?.id, 20_000)

  await sleep(retryAfterMs(first.headers.get('retry-after')) ?? 2000)
  const retried = await rerun()

  t.equal(retried.status, 409, `the re-run is pending already (${JSON.stringify(retried.body)})`)
  t.equal(retried.body.code, 'identical_task_pending')
  t.equal(retried.body.existingTaskId, stored, 'the 409 names the re-run stored after the 503')
  t.same((await tasksOf(reader, account.id)).filter((task) => task.rerunOf === original).length, 1, 'exactly one re-run stored')
})

/** Two bodies; the second's TaskCreated is held back until the batch has answered. */
async function aBatchWithItsLastBodyHeld(api: ApiClient, headers: Record<string, string>) {
  const sessionId = await aSession(api)
  const held = `Plan the holiday campaign ${randomUUID()}`
  const tasks = [
    { sessionId, instruction: `Draft the holiday emails ${randomUUID()}` },
    { sessionId, instruction: held },
  ]
  const send = () => api.withoutRetry().post<Reply>('/v1/tasks/batch', { tasks }, headers)
  return { send, first: await answeredWhileHeld(held, send) }
}

t.test(
  'given a batch whose last body was answered 503 and stored afterwards, when it is sent again with its key, then its results give that task as created and nothing more is created',
  async (t) => {
    const { api, account } = await aCaller(service.infra, service.url)
    const { send, first } = await aBatchWithItsLastBodyHeld(api, { 'idempotency-key': randomUUID() })
    t.equal(first.status, 200)
    t.same(
      first.body.results?.map((result) => result.status),
      [201, 503],
      'the first body created, the last not acknowledged in time',
    )
    const created = first.body.results?.[0]?.task?.id
    const stored = await until('the held body stored', async () => (await tasksOf(reader, account.id)).find((task) => task.id !== created)?.id, 20_000)

    // When: the batch again, as its 503 asks.
    const retried = await onceSettled(send)

    t.equal(retried.status, 200, JSON.stringify(retried.body))
    t.equal(retried.headers.get('idempotent-replayed'), 'true', 'answered from the key, not executed again')
    t.same(
      retried.body.results?.map((result) => [result.status, result.task?.id]),
      [
        [201, created],
        [201, stored],
      ],
      'both bodies created: the first as answered, the last as stored after its 503',
    )
    t.same((await tasksOf(reader, account.id)).map((task) => task.id).sort(), [created, stored].sort(), 'exactly the two tasks stored')
  },
)

t.test(
  'given a batch without a key whose last body was answered 503 and stored afterwards, when it is sent again, then each body meets the 409 naming its task and nothing more is created',
  async (t) => {
    const { api, account } = await aCaller(service.infra, service.url)
    const { send, first } = await aBatchWithItsLastBodyHeld(api, {})
    t.same(
      first.body.results?.map((result) => result.status),
      [201, 503],
    )
    const created = first.body.results?.[0]?.task?.id
    const stored = await until('the held body stored', async () => (await tasksOf(reader, account.id)).find((task) => task.id !== created)?.id, 20_000)

    const retried = await send()

    t.same(
      retried.body.results?.map((result) => [result.status, result.code, result.existingTaskId]),
      [
        [409, 'identical_task_pending', created],
        [409, 'identical_task_pending', stored],
      ],
      'the 409s name the tasks of the first batch, the one stored after its 503 included',
    )
    t.same((await tasksOf(reader, account.id)).map((task) => task.id).sort(), [created, stored].sort(), 'exactly the two tasks stored')
  },
)

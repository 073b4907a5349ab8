import { randomUUID } from 'node:crypto'
import t from 'tap'
import { tasksProjection, type TaskDoc } from '../../projections/index.js'
import { createTask } from '../../src/commands/create-task/create-task.js'
import { operator } from '../../src/commands/execute.js'
import { startTask } from '../../src/commands/start-task/start-task.js'
import { startService } from '../../src/service.js'
import { aCaller } from '../helpers/mothers.js'
import { exited, startMats } from '../helpers/processes.js'
import { startServers } from '../helpers/servers.js'
import { startTestService, testConfig, testLog } from '../helpers/service.js'
import { lifecycleViolations, taskHistories } from '../helpers/task-log.js'
import { until } from '../helpers/wait.js'
import type { AppContext } from '../../src/app-context.js'

async function sessionFor(api: Awaited<ReturnType<typeof aCaller>>['api']): Promise<string> {
  return (await api.post<{ session: { id: string } }>('/v1/sessions', { name: 'crash tests' })).body.session.id
}

async function tasksWithStatus(infra: AppContext, accountId: string, status: TaskDoc['status']): Promise<number> {
  return infra.readModels.collection<TaskDoc>(tasksProjection).countDocuments({ accountId, status })
}

t.test('two workers racing over 200 tasks: each task starts once and ends once', async (t) => {
  const servers = await startServers(t)
  const env = { OFFLINE_AGENT_LATENCY_MS: '10', WORKER_CONCURRENCY: '8' }
  const service = await startTestService(t, servers, { env })
  const second = await startService(testConfig(servers, env), testLog(), new Set(['worker'] as const))
  t.teardown(() => second.stop())
  const caller = await aCaller(service.infra, service.url, { monthlyBudgetUsd: 1000 })
  const sessionId = await sessionFor(caller.api)

  const ids = await Promise.all(
    Array.from({ length: 200 }, async (_, i) => {
      const res = await caller.api.post<{ task: { id: string } }>('/v1/tasks', { sessionId, instruction: `Race task number ${i}` })
      return res.body.task.id
    }),
  )
  t.equal(new Set(ids).size, 200)
  await until('all 200 tasks to complete', async () => (await tasksWithStatus(service.infra, caller.account.id, 'completed')) === 200, 60_000, 100)

  const histories = await taskHistories(service.infra)
  t.same(lifecycleViolations(histories), [], 'invariant 3 holds for every task')
  const workers = new Set(
    [...histories.values()]
      .flat()
      .filter((e) => e.type === 'TaskStarted')
      .map((e) => (e.data as { workerId: string }).workerId),
  )
  t.equal(workers.size, 2, 'both workers ran tasks')
  t.equal([...histories.values()].filter((events) => events.at(-1)?.type === 'TaskCompleted').length, 200)
})

t.test('two claims of one task at the same instant: exactly one wins', async (t) => {
  const servers = await startServers(t)
  const service = await startTestService(t, servers, { roles: ['api', 'projector'] })
  const caller = await aCaller(service.infra, service.url, { monthlyBudgetUsd: 1000 })
  const sessionId = await sessionFor(caller.api)
  let wins = 0
  for (let i = 0; i < 50; i++) {
    const taskId = randomUUID()
    await createTask(service.infra, caller.account.id, { taskId, sessionId, agentType: 'seo', instruction: `claim race ${i}`, title: null, priority: 'normal' }, operator())
    const claims = await Promise.allSettled(['worker-a', 'worker-b'].map((w) => startTask(service.infra, { accountId: caller.account.id, taskId }, w, operator())))
    t.equal(claims.filter((c) => c.status === 'fulfilled').length, 1, `race ${i}: one claim wins`)
    wins++
  }
  t.equal(wins, 50)
  t.same(lifecycleViolations(await taskHistories(service.infra)), [])
})

t.test('a worker killed with SIGKILL mid-run: its 20 tasks fail within the bound, none runs twice, a new worker carries on', async (t) => {
  const servers = await startServers(t)
  const ackWaitMs = 2000
  const service = await startTestService(t, servers, { roles: ['api', 'projector'] })
  const caller = await aCaller(service.infra, service.url, { monthlyBudgetUsd: 1000 })
  const sessionId = await sessionFor(caller.api)
  const workerEnv = (latency: number, concurrency: number) => ({
    NATS_URL: servers.natsUrl,
    MONGODB_URL: servers.mongoUrl,
    OFFLINE_AGENT_LATENCY_MS: String(latency),
    WORKER_CONCURRENCY: String(concurrency),
    WORKER_ACK_WAIT_MS: String(ackWaitMs),
  })
  const doomed = await startMats(t, ['--role', 'worker'], workerEnv(600_000, 20))
  for (let i = 0; i < 20; i++) await caller.api.post('/v1/tasks', { sessionId, instruction: `Slow task ${i}` })
  await until('all 20 tasks to be running', async () => (await tasksWithStatus(service.infra, caller.account.id, 'running')) === 20, 30_000, 50)

  // Started before the kill (all 20 are held by the doomed worker by now): the bound is the product's, not a process start's.
  const fresh = await startMats(t, ['--role', 'worker'], workerEnv(20, 4))
  doomed.kill('SIGKILL')
  await exited(doomed)
  const killedAt = Date.now()
  await until('all 20 tasks to be failed', async () => (await tasksWithStatus(service.infra, caller.account.id, 'failed')) === 20, 30_000, 50)
  const elapsed = Date.now() - killedAt
  const bound = ackWaitMs * 3
  t.ok(elapsed < bound, `failed ${elapsed} ms after the kill (bound: 3 × ack wait = ${bound} ms)`)

  const failed = await service.infra.readModels.collection<TaskDoc>(tasksProjection).find({ accountId: caller.account.id }).toArray()
  t.ok(
    failed.every((task) => /stopped responding; tasks are not retried/.test(task.error ?? '')),
    'each error says the worker died and the task was not retried',
  )
  const histories = await taskHistories(service.infra)
  t.same(lifecycleViolations(histories), [], 'no task started twice, none ended twice')

  const after = await caller.api.post<{ task: { status: string } }>('/v1/tasks', { sessionId, instruction: 'A task after the crash', waitSeconds: 20 })
  t.equal(after.body.task.status, 'completed', 'the fresh worker runs new tasks')
  fresh.kill('SIGTERM')
  t.equal(await exited(fresh), 0, 'the fresh worker stops cleanly on SIGTERM')
})

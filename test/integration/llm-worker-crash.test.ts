import { randomUUID } from 'node:crypto'
import t from 'tap'
import { createAgentProvider } from '../../consumers/agents/registry.js'
import { NO_CONNECTORS } from '../../consumers/connectors/platform-connectors.js'
import { ClaimerAliveError, runTask, type RunContext } from '../../consumers/worker/run-task.js'
import { createTask } from '../../src/commands/create-task/create-task.js'
import { operator } from '../../src/commands/execute.js'
import { finishTask } from '../../src/commands/finish-task/finish-task.js'
import { startTask } from '../../src/commands/start-task/start-task.js'
import { Task } from '../../src/domain/tasks/task.js'
import { startFakeModelServer } from '../fakes/model-server.js'
import { delegatesTwiceThenHangs, MODEL, PROVIDER_KEY, type TaskView } from '../helpers/language-models.js'
import { aCaller, aSessionBody } from '../helpers/mothers.js'
import { exited, startMats } from '../helpers/processes.js'
import { WorkerHeartbeats } from '../../src/infra/nats/worker-heartbeats.js'
import { RunCancellations } from '../../consumers/worker/cancellations.js'
import { startServers } from '../helpers/servers.js'
import { connectTestInfra, startTestService, testLog } from '../helpers/service.js'
import { lifecycleViolations, taskHistories } from '../helpers/task-log.js'
import { until } from '../helpers/wait.js'

t.test('a worker killed while its supervisor task waits on two delegated tasks: all three fail within the bound, none runs again', async (t) => {
  const servers = await startServers(t)
  const fake = await startFakeModelServer(t, 'openai', delegatesTwiceThenHangs)
  const ackWaitMs = 2000
  const service = await startTestService(t, servers, { roles: ['api', 'projector'] })
  const caller = await aCaller(service.infra, service.url)
  const sessionId = (await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
  const env = {
    NATS_URL: servers.natsUrl,
    MONGODB_URL: servers.mongoUrl,
    WORKER_ACK_WAIT_MS: String(ackWaitMs),
    LLM_PROVIDER: 'openai',
    LLM_BASE_URL: fake.baseUrl,
    LLM_API_KEY: PROVIDER_KEY,
    LLM_MODEL: MODEL,
  }
  const doomed = await startMats(t, ['--role', 'worker'], env)
  const parent = (await caller.api.post<{ task: TaskView }>('/v1/tasks', { sessionId, instruction: 'Launch the kit' })).body.task
  await until('both specialists to be waiting on the model', () => fake.inFlight() === 2, 30_000)
  await until(
    'both delegations to be recorded',
    async () => (await service.infra.events.load(Task, { accountId: caller.account.id, aggregateId: parent.id })).events.filter((e) => e.type === 'TaskDelegated').length === 2,
    10_000,
  )

  // Started before the kill (every message is held by the doomed worker by now): the bound is the product's, not a process start's.
  const fresh = await startMats(t, ['--role', 'worker'], env)
  doomed.kill('SIGKILL')
  await exited(doomed)
  const killedAt = Date.now()
  const ended = await until(
    'the supervisor task and both delegated tasks to fail',
    async () => {
      const { body } = await caller.api.get<{ tasks: TaskView[] }>(`/v1/tasks?sessionId=${sessionId}`)
      return body.tasks.length === 3 && body.tasks.every((task) => task.status === 'failed') && body.tasks
    },
    30_000,
    50,
  )
  const elapsed = Date.now() - killedAt
  t.ok(elapsed < ackWaitMs * 3, `all failed ${elapsed} ms after the kill (bound: 3 × ack wait)`)
  t.same(
    ended
      .filter((task) => task.parentTaskId === parent.id)
      .map((task) => task.agentType)
      .sort(),
    ['creative', 'seo'],
  )
  for (const task of ended) t.match(task.error, /stopped responding; tasks are not retried/)

  const histories = await taskHistories(service.infra)
  t.same(lifecycleViolations(histories), [], 'no task started twice, none ended twice')
  t.equal(histories.get(parent.id)?.filter((e) => e.type === 'TaskDelegated').length, 2)
  t.equal(fake.requests.length, 3, 'nothing ran again: one supervisor call, one per specialist')
  fresh.kill('SIGTERM')
  t.equal(await exited(fresh), 0)
})

t.test('a delegated task’s own message coming back while its supervisor runs it is handed back; once the supervisor has ended, it is failed', async (t) => {
  const servers = await startServers(t)
  const infra = await connectTestInfra(t, servers)
  const service = await startTestService(t, servers, { roles: ['api'] })
  const caller = await aCaller(infra, service.url)
  const sessionId = (await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
  const accountId = caller.account.id
  const [parentId, childId] = [randomUUID(), randomUUID()]
  const base = { sessionId, title: null, priority: 'normal' as const }
  await createTask(infra, accountId, { ...base, taskId: parentId, agentType: 'growth-marketer', instruction: 'Launch the kit' }, operator())
  await startTask(infra, { accountId, taskId: parentId }, 'worker-a', operator())
  await createTask(infra, accountId, { ...base, taskId: childId, agentType: 'seo', instruction: 'Audit the kit pages', taskType: 'delegated', parentTaskId: parentId }, operator())
  await startTask(infra, { accountId, taskId: childId }, 'worker-a', operator())

  const ctx: RunContext = {
    infra,
    provider: createAgentProvider(infra.config, testLog()),
    connectors: NO_CONNECTORS,
    workerId: 'worker-b',
    heartbeats: await WorkerHeartbeats.open(infra.js, 1),
    cancellations: new RunCancellations(testLog()),
    claimsInDoubt: new Set(),
    timeoutMs: 5000,
    shutdown: new AbortController().signal,
    log: testLog(),
  }
  const [created] = (await infra.events.load(Task, { accountId, aggregateId: childId })).events
  if (created?.type !== 'TaskCreated') throw new Error('the child has no TaskCreated')
  const child = { accountId, taskId: childId, created, redelivered: true }
  await t.rejects(runTask(ctx, child), ClaimerAliveError, 'handed back, not acknowledged: checked again later')
  t.equal((await infra.events.load(Task, { accountId, aggregateId: childId })).state.status, 'running', 'worker-a still runs it for its supervisor')

  await finishTask(infra, { accountId, taskId: parentId }, { outcome: 'failed', reason: 'agent_error', error: 'x', usage: null, costMicros: 0 }, operator())
  await runTask(ctx, child)
  t.equal((await infra.events.load(Task, { accountId, aggregateId: childId })).state.status, 'failed', 'with its supervisor ended, nothing else would end it')
})

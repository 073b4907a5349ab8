import t from 'tap'
import { startFakeModelServer, type ModelRequestView, type ModelReply } from '../fakes/model-server.js'
import { MODEL, PROVIDER_KEY, eventsOf, streamEvents, type TaskView } from '../helpers/language-models.js'
import { aCaller, aSessionBody } from '../helpers/mothers.js'
import { exited, spawnMats } from '../helpers/processes.js'
import { startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'
import { lifecycleViolations, taskHistories } from '../helpers/task-log.js'
import { until } from '../helpers/wait.js'

/** The supervisor delegates twice; the specialists never answer, so the worker dies mid-delegation. */
const script = (request: ModelRequestView): ModelReply =>
  request.system.startsWith('You are the Growth Marketer') && request.turn === 0
    ? { text: '', calls: [
        { name: 'delegate_to_specialist', args: { agentType: 'seo', instruction: 'Audit the kit pages' } },
        { name: 'delegate_to_specialist', args: { agentType: 'creative', instruction: 'Three ad concepts for the kit' } },
      ] }
    : { hang: true }

t.test('a worker killed while its supervisor task waits on two delegated tasks: all three fail within the bound, none runs again', async (t) => {
  const servers = await startServers(t)
  const fake = await startFakeModelServer(t, 'openai', script)
  const ackWaitMs = 2000
  const service = await startTestService(t, servers, { roles: ['api', 'projector'] })
  const caller = await aCaller(service.infra, service.url)
  const sessionId = (await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
  const env = {
    NATS_URL: servers.natsUrl, MONGODB_URL: servers.mongoUrl, WORKER_ACK_WAIT_MS: String(ackWaitMs),
    LLM_PROVIDER: 'openai', LLM_BASE_URL: fake.baseUrl, LLM_API_KEY: PROVIDER_KEY, LLM_MODEL: MODEL,
  }
  const doomed = spawnMats(t, ['start', '--role', 'worker'], env)
  const parent = (await caller.api.post<{ task: TaskView }>('/v1/tasks', { sessionId, instruction: 'Launch the kit' })).body.task
  await until('both specialists to be waiting on the model', () => fake.inFlight() === 2, 30_000)

  doomed.kill('SIGKILL')
  await exited(doomed)
  const killedAt = Date.now()
  const fresh = spawnMats(t, ['start', '--role', 'worker'], env)
  const ended = await until('the supervisor task and both delegated tasks to fail', async () => {
    const { body } = await caller.api.get<{ tasks: TaskView[] }>(`/v1/tasks?sessionId=${sessionId}`)
    return body.tasks.length === 3 && body.tasks.every((task) => task.status === 'failed') && body.tasks
  }, 30_000, 50)
  const elapsed = Date.now() - killedAt
  t.ok(elapsed < ackWaitMs * 3, `all failed ${elapsed} ms after the kill (bound: 3 × ack wait, including the new worker's start)`)
  t.same(ended.filter((task) => task.parentTaskId === parent.id).map((task) => task.agentType).sort(), ['creative', 'seo'])
  for (const task of ended) t.match(task.error, /stopped responding; tasks are not retried/)

  const histories = await taskHistories(service.infra)
  t.same(lifecycleViolations(histories), [], 'no task started twice, none ended twice')
  t.equal(eventsOf(await streamEvents(service.infra, 'MATS_TASKS'), parent.id, 'TaskDelegated').length, 2)
  t.equal(fake.requests.length, 3, 'nothing ran again: one supervisor call, one per specialist')
  fresh.kill('SIGTERM')
  t.equal(await exited(fresh), 0)
})

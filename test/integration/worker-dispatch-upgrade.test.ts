import { AckPolicy, DeliverPolicy } from '@nats-io/jetstream'
import t from 'tap'
import { WORKER_CONSUMER } from '../../consumers/worker/worker.js'
import { Task } from '../../src/domain/tasks/task.js'
import { startService } from '../../src/service.js'
import { aCaller, aSessionBody } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { startTestService, testConfig, testLog } from '../helpers/service.js'
import { until } from '../helpers/wait.js'

/** ADR 0052's upgrade: tasks queued on `mats-worker` are run from it, the rest from the dispatch stream, each once; then `mats-worker` goes. */
const servers = await startServers(t)
const service = await startTestService(t, servers, { roles: ['api', 'projector'] })
const { infra } = service
const fast = { OFFLINE_AGENT_LATENCY_MS: '0' }

/** `mats-worker` as versions before per-account dispatch made it: every TaskCreated in arrival order. */
const OLD_WORKER_CONSUMER = {
  durable_name: WORKER_CONSUMER,
  filter_subject: 'mats.task.*.*.TaskCreated',
  ack_policy: AckPolicy.Explicit,
  deliver_policy: DeliverPolicy.All,
  ack_wait: 30_000_000_000,
  max_deliver: -1,
  max_ack_pending: -1,
}

async function historyOf(accountId: string, taskId: string): Promise<string[]> {
  return (await infra.events.load(Task, { accountId, aggregateId: taskId })).events.map((e) => e.type)
}

t.test('given tasks queued on mats-worker, when a worker starts, then it runs them and the new ones once each, and removes mats-worker', async (t) => {
  await infra.jsm.consumers.add('MATS_TASKS', OLD_WORKER_CONSUMER)
  const { api, account } = await aCaller(infra, service.url)
  const sessionId = (await api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
  const post = async (instruction: string) => (await api.post<{ task: { id: string } }>('/v1/tasks', { sessionId, instruction })).body.task.id
  const queued = [await post('Queued before the upgrade, one'), await post('Queued before the upgrade, two')]
  t.equal((await infra.jsm.consumers.info('MATS_TASKS', WORKER_CONSUMER)).num_pending, 2, 'two tasks wait on mats-worker')

  const worker = await startService(testConfig(servers, fast), testLog(), new Set(['worker'] as const))
  t.teardown(() => worker.stop())
  const after = await post('Posted after the upgrade')

  for (const id of [...queued, after]) {
    const history = await until(`task ${id} to complete`, async () => {
      const events = await historyOf(account.id, id)
      return events.at(-1) === 'TaskCompleted' && events
    })
    t.same(history, ['TaskCreated', 'TaskStarted', 'TaskCompleted'], 'started and completed once')
  }
  await until('mats-worker to be removed once drained', async () => (await infra.jsm.consumers.info('MATS_TASKS', WORKER_CONSUMER).catch(() => null)) === null)
  // A task's message is acknowledged after its TaskCompleted is stored, without waiting for an answer.
  const dispatch = await until('the dispatch stream to be empty', async () => {
    const info = await infra.jsm.streams.info('MATS_DISPATCH')
    return info.state.messages === 0 && info
  })
  t.equal(dispatch.state.messages, 0, 'nothing left in the dispatch stream')
  t.equal(dispatch.state.last_seq, 1, 'only the task posted after the upgrade went through the dispatch stream: none was dispatched twice')
})

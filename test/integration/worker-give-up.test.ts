import { randomUUID } from 'node:crypto'
import t from 'tap'
import { Task } from '../../src/domain/tasks/task.js'
import { PoisonMessages } from '../../src/infra/mongo/poison-messages.js'
import { MAX_HANDLING_ATTEMPTS } from '../../src/infra/nats/failed-messages.js'
import { accountDispatchConsumer, dispatchMessagesOf } from '../helpers/dispatch.js'
import { aCaller, aSessionBody, endedTaskDrafts } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { startTestService, testConfig, testLog } from '../helpers/service.js'
import { startService } from '../../src/service.js'
import { until } from '../helpers/wait.js'

const servers = await startServers(t)
// No worker yet: the task's events are all stored before one sees them.
const service = await startTestService(t, servers, { roles: ['api', 'projector'] })
const { infra } = service

/** A task that ended with facts to learn into a session that does not exist: its worker can never finish handling it. */
async function aTaskWithAMissingSession(accountId: string): Promise<number> {
  const sessionId = randomUUID()
  const instruction = 'A brief whose session was never created'
  const drafts = endedTaskDrafts(sessionId, instruction, { completed: { learnedFacts: ['a fact for a session that is not there'] } })
  const metadata = { correlationId: randomUUID(), causationId: null, keyId: null }
  const [created] = await infra.events.append(Task, { accountId, aggregateId: randomUUID() }, drafts, { expectedVersion: 0, metadata, now: new Date() })
  return created!.seq
}

t.test('given a TaskCreated whose handling fails every time for a reason other than an outage, then the worker gives it up after its attempts, records it, and goes on', async (t) => {
  const { api, account } = await aCaller(infra, service.url)
  const seq = await aTaskWithAMissingSession(account.id)
  // A short ack wait: the worker hands a failed message back after it, so the attempts come quickly.
  const worker = await startService(testConfig(servers, { OFFLINE_AGENT_LATENCY_MS: '0', WORKER_ACK_WAIT_MS: '1000' }), testLog(), new Set(['worker'] as const))
  t.teardown(() => worker.stop())

  const poison = new PoisonMessages(infra.db, infra.log)
  const given = await until('the worker to give the message up', async () => (await poison.latest(10)).find((m) => m.seq === seq), 30_000, 100)
  t.match(given, { stream: 'MATS_TASKS', seenBy: ['worker'], reason: new RegExp(`^given up after ${MAX_HANDLING_ATTEMPTS} attempts: session not found`) })
  await until('nothing of it left with the worker', async () => {
    const info = await accountDispatchConsumer(infra, account.id)
    return info !== null && info.num_ack_pending === 0 && info.num_pending === 0
  })
  // A work queue: the dispatch copy of the message goes once the worker terminates it, so it is not delivered again.
  await until('the message to be gone from the dispatch stream', async () => (await dispatchMessagesOf(infra, account.id)) === 0)

  const sessionId = (await api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
  const next = await api.post<{ task: { status: string } }>('/v1/tasks', { sessionId, instruction: 'The next task', waitSeconds: 20 })
  t.equal(next.body.task.status, 'completed', 'the worker goes on with the next task')
})

import t, { type Test } from 'tap'
import { startService } from '../../src/service.js'
import { capturingLog } from '../helpers/language-models.js'
import { aCaller, aSessionBody } from '../helpers/mothers.js'
import { identityEntriesHeld } from '../helpers/pending-tasks.js'
import { startServers } from '../helpers/servers.js'
import { startTestService, testConfig } from '../helpers/service.js'
import { startTcpProxy } from '../helpers/tcp-proxy.js'
import { lifecycleViolations, taskHistories } from '../helpers/task-log.js'
import { until } from '../helpers/wait.js'

/** An API and projector on NATS directly, a worker through a proxy that can hold what it sends; a caller with a session. */
async function rig(t: Test) {
  const servers = await startServers(t)
  const service = await startTestService(t, servers, { roles: ['api', 'projector'] })
  const proxy = await startTcpProxy(t, servers.nats.port)
  const { log, lines } = capturingLog('info')
  const env = { OFFLINE_AGENT_LATENCY_MS: '0', WORKER_ACK_WAIT_MS: '2000' }
  const worker = await startService(testConfig({ ...servers, natsUrl: `nats://127.0.0.1:${proxy.port}` }, env), log, new Set(['worker'] as const))
  t.teardown(() => worker.stop())
  const caller = await aCaller(service.infra, service.url)
  const sessionId = (await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
  const logged = (text: string) => until(`the worker to log '${text}'`, () => lines.some((line) => line.includes(text)), 20_000, 20)
  return { service, proxy, caller, sessionId, logged }
}

/**
 * Invariant 4 on a busy cluster: NATS may store a worker's claim (TaskStarted) after the
 * worker stopped waiting for its answer. That worker is alive and never ran the task; the
 * task must be run, once, not failed as if its worker had died, and its identity entry
 * (ADR 0011) must not be left behind.
 */
t.test('given a claim NATS stores after the worker timed out on it, when the task comes back, then it runs once and completes', async (t) => {
  const { service, proxy, caller, sessionId, logged } = await rig(t)

  // Given: the worker's TaskStarted is held on its way to NATS until the worker has given up on it.
  const held = proxy.holdFrom('.TaskStarted')
  const task = (await caller.api.post<{ task: { id: string } }>('/v1/tasks', { sessionId, instruction: 'A brief whose claim is answered late' })).body.task
  await held
  await logged('could not process task; it will be redelivered')
  // When: NATS gets it after all (stored: nothing else was appended to the task meanwhile).
  proxy.release()

  // Then
  const history = await until(
    'the task to end',
    async () => {
      const events = (await taskHistories(service.infra)).get(task.id) ?? []
      return events.some((e) => e.type === 'TaskCompleted' || e.type === 'TaskFailed') && events
    },
    30_000,
    100,
  )
  const types = history.map((e) => e.type)
  t.same(types, ['TaskCreated', 'TaskStarted', 'TaskCompleted'], `run once, by the worker whose claim was stored late (${types.join(', ')})`)
  t.same(lifecycleViolations(await taskHistories(service.infra)), [])
  await until('its identity entry to be released', async () => (await identityEntriesHeld(service.infra)) === 0, 20_000, 100)
  t.pass('no identity entry is left held')
})

t.test('given the removal of the identity entry of a claimed task held on its way, when NATS gets it, then the entry is removed all the same', async (t) => {
  const { service, proxy, caller, sessionId } = await rig(t)

  // Given: what the worker sends from its removal of the entry on is held (it asks for no answer, ADR 0063).
  const held = proxy.holdFrom('$KV.mats_pending_tasks.')
  const task = (await caller.api.post<{ task: { id: string } }>('/v1/tasks', { sessionId, instruction: 'A brief whose entry is cleared late' })).body.task
  await held
  t.equal(await identityEntriesHeld(service.infra), 1, 'the entry is held while the removal is on its way')
  // When
  proxy.release()

  // Then
  await until('its identity entry to be released', async () => (await identityEntriesHeld(service.infra)) === 0, 20_000, 100)
  t.pass('no identity entry is left held')
  const last = await until(
    'the task to end',
    async () =>
      (await taskHistories(service.infra))
        .get(task.id)
        ?.at(-1)
        ?.type.replace(/^Task(Created|Started)$/, '') || undefined,
    20_000,
    100,
  )
  t.equal(last, 'TaskCompleted', 'and the task ran as usual')
})

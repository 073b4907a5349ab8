import { Kvm } from '@nats-io/kv'
import t from 'tap'
import { PendingTasks } from '../../src/infra/nats/pending-tasks.js'
import { startService } from '../../src/service.js'
import { aCaller, aSessionBody } from '../helpers/mothers.js'
import { identityEntriesHeld } from '../helpers/pending-tasks.js'
import { startServers } from '../helpers/servers.js'
import { startTestService, testConfig, testLog } from '../helpers/service.js'
import { taskHistories } from '../helpers/task-log.js'
import { until } from '../helpers/wait.js'

/**
 * ADR 0050: a task's TaskCreated carries the revision of the identical-task entry (ADR 0011)
 * its creation took, and its claim removes that very entry by it, without reading it first.
 */
t.test('given a task created, then its TaskCreated carries its identity entry revision, and its claim releases the entry', async (t) => {
  const servers = await startServers(t)
  const service = await startTestService(t, servers, { roles: ['api', 'projector'] })
  const caller = await aCaller(service.infra, service.url)
  const sessionId = (await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
  const brief = { sessionId, instruction: 'Plan the launch posts for the spring collection' }

  // When: a task is created, with no worker yet.
  const first = (await caller.api.post<{ task: { id: string } }>('/v1/tasks', brief)).body.task

  // Then
  const created = (await taskHistories(service.infra)).get(first.id)?.[0]?.data as { fingerprint: string; identityRevision?: number }
  const bucket = await new Kvm(service.infra.js).open('mats_pending_tasks')
  const entry = await bucket.get(PendingTasks.key(caller.account.id, created.fingerprint))
  t.equal(entry?.string(), first.id, 'the task holds its identity entry')
  t.equal(created.identityRevision, entry?.revision, "TaskCreated carries the revision of the entry the task's creation took")

  // When: a worker claims it.
  const worker = await startService(testConfig(servers, { OFFLINE_AGENT_LATENCY_MS: '0' }), testLog(), new Set(['worker'] as const))
  t.teardown(() => worker.stop())
  await until('the entry to be released by the claim', async () => (await identityEntriesHeld(service.infra)) === 0)
  const again = await caller.api.post('/v1/tasks', brief)
  t.equal(again.status, 201, 'an identical brief is accepted once the first task is claimed')
})

t.test('given an entry another task now holds, when a task releases its own older revision, then the entry stays held', async (t) => {
  const servers = await startServers(t)
  const service = await startTestService(t, servers, { roles: ['api'] })
  const { pendingTasks } = service.infra
  const key = PendingTasks.key('acct', 'f'.repeat(64))

  // Given: task-a took the entry, gave it up, and task-b took it after.
  const a = await pendingTasks.acquire(key, 'task-a')
  if (!a.acquired) throw new Error('task-a should take a fresh entry')
  await pendingTasks.release(key, 'task-a', a.revision)
  const b = await pendingTasks.acquire(key, 'task-b')
  t.ok(b.acquired, 'task-b takes the released entry')

  // When: task-a's release comes again (a retry after a lost answer).
  await pendingTasks.release(key, 'task-a', a.revision)

  // Then
  const held = await pendingTasks.acquire(key, 'task-c')
  t.match(held, { acquired: false, holder: 'task-b' }, 'task-b still holds it')
})

t.test('given a claimed task, when it releases its entry unacknowledged, then one message without a reply removes it, and a stale revision leaves a newer holder', async (t) => {
  const servers = await startServers(t)
  const service = await startTestService(t, servers, { roles: ['api'] })
  const { pendingTasks, nc } = service.infra
  const key = PendingTasks.key('acct', 'e'.repeat(64))
  const seen: { operation: string; asksAnswer: boolean }[] = []
  const watcher = nc.subscribe(`$KV.mats_pending_tasks.${key}`, {
    callback: (_err, msg) => {
      seen.push({ operation: msg.headers?.get('KV-Operation') || 'PUT', asksAnswer: msg.reply !== '' })
    },
  })
  t.teardown(() => watcher.unsubscribe())
  await nc.flush()
  const a = await pendingTasks.acquire(key, 'task-a')
  if (!a.acquired) throw new Error('task-a should take a fresh entry')

  // When: task-a was claimed and releases its entry unacknowledged.
  pendingTasks.releaseUnacknowledged(key, a.revision)

  // Then: the entry is gone, and what removed it asked for no answer.
  const b = await until('the entry to be free again', async () => {
    const taken = await pendingTasks.acquire(key, 'task-b')
    return taken.acquired ? taken : undefined
  })
  t.same(
    seen.slice(0, 2),
    [
      { operation: 'PUT', asksAnswer: true },
      { operation: 'DEL', asksAnswer: false },
    ],
    'the removal carried no reply subject (JetStream sends no acknowledgement)',
  )

  // When: task-a's release comes again, now that task-b holds the entry.
  pendingTasks.releaseUnacknowledged(key, a.revision)
  await nc.flush()

  // Then
  t.match(await pendingTasks.acquire(key, 'task-c'), { acquired: false, holder: 'task-b', revision: b.revision }, 'task-b still holds it')
})

t.test(
  "given an ended task's entry left behind (its unacknowledged release lost), when an identical brief comes, then the stale entry is cleared and the brief created (the fallback ADR 0063 relies on)",
  async (t) => {
    const servers = await startServers(t)
    const service = await startTestService(t, servers, { roles: ['api', 'projector', 'worker'], env: { OFFLINE_AGENT_LATENCY_MS: '0' } })
    const caller = await aCaller(service.infra, service.url)
    const sessionId = (await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
    const brief = { sessionId, instruction: 'Plan the launch posts for the autumn collection' }
    const first = (await caller.api.post<{ task: { id: string } }>('/v1/tasks', brief)).body.task
    await until('the first task to end', async () => (await taskHistories(service.infra)).get(first.id)?.some((event) => event.type === 'TaskCompleted'))
    const created = (await taskHistories(service.infra)).get(first.id)?.[0]?.data as { fingerprint: string }
    const bucket = await new Kvm(service.infra.js).open('mats_pending_tasks')
    const key = PendingTasks.key(caller.account.id, created.fingerprint)

    // Given: the entry names the ended task again, as if its removal never reached NATS.
    await bucket.put(key, first.id)

    // When
    const again = await caller.api.post<{ task: { id: string } }>('/v1/tasks', brief)

    // Then
    t.equal(again.status, 201, 'the identical brief is created: the entry named a task no longer pending')
    const holder = await bucket.get(key)
    t.ok(holder?.operation === 'DEL' || holder?.string() === again.body.task.id, 'the entry is the new task’s, or already released by its claim')
  },
)

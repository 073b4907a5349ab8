import { randomUUID } from 'node:crypto'
import t from 'tap'
import { createTask } from '../../src/commands/create-task/create-task.js'
import { delegateTask } from '../../src/commands/delegate-task/delegate-task.js'
import { operator } from '../../src/commands/execute.js'
import { startTask } from '../../src/commands/start-task/start-task.js'
import { EventStoreUnavailableError } from '../../src/infra/nats/event-store.js'
import { aProxiedWriter, aSession, heldBack } from '../helpers/decisions.js'
import { eventsOf, streamEvents } from '../helpers/event-log.js'
import { anAccount } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { connectTestInfra } from '../helpers/service.js'
import { until } from '../helpers/wait.js'

/**
 * Invariant 5 across two aggregates (ADR 0034): a delegation stores the child's TaskCreated and
 * the supervisor's TaskDelegated as one atomic batch, each guarded by its task's version.
 */
const servers = await startServers(t)
const infra = await connectTestInfra(t, servers)
const WORKER = 'worker-a'

/** A supervisor task running on WORKER, in a session of a new account. */
async function aRunningSupervisor() {
  const session = await aSession(infra, (await anAccount(infra)).id)
  const supervisor = { accountId: session.accountId, taskId: randomUUID(), sessionId: session.sessionId, priority: 'normal' as const }
  const brief = { taskId: supervisor.taskId, sessionId: session.sessionId, agentType: 'growth-marketer' as const, instruction: 'Launch the spring kit', title: null, priority: 'normal' as const }
  await createTask(infra, session.accountId, brief, operator())
  await startTask(infra, { accountId: session.accountId, taskId: supervisor.taskId }, WORKER, operator())
  return supervisor
}

/** The stored events of a task, by type. */
async function typesOf(taskId: string): Promise<string[]> {
  return eventsOf(await streamEvents(infra, 'MATS_TASKS'), taskId).map((e) => e.type)
}

t.test('given a delegation whose connection is cut before its commit, then neither task changes, and asked again it stores both, once', async (t) => {
  const supervisor = await aRunningSupervisor()
  const writer = await aProxiedWriter(t, servers)
  const delegation = { childTaskId: randomUUID(), agentType: 'seo' as const, instruction: 'Audit the kit pages' }
  // Given: the server has the batch's first message (the child's TaskCreated) and the connection drops before the commit
  const held = writer.proxy.holdFrom('Nats-Batch-Commit')
  const delegating = delegateTask(writer.infra, supervisor, WORKER, delegation, operator())
  await heldBack(held, delegating)
  writer.proxy.cut()
  // When
  await t.rejects(delegating, EventStoreUnavailableError, 'the delegation is not acknowledged')
  // Then
  t.same(await typesOf(delegation.childTaskId), [], 'no child task')
  t.same(await typesOf(supervisor.taskId), ['TaskCreated', 'TaskStarted'], 'no delegation on the supervisor')

  writer.proxy.restore()
  await until('the writer to reconnect', () => writer.infra.link.isUp, 20_000)
  const child = await delegateTask(writer.infra, supervisor, WORKER, delegation, operator())
  t.equal(child.state.status, 'pending')
  t.same(await typesOf(delegation.childTaskId), ['TaskCreated'])
  const delegated = eventsOf(await streamEvents(infra, 'MATS_TASKS'), supervisor.taskId, 'TaskDelegated').map((e) => e.data)
  t.same(delegated, [delegation], 'the supervisor names the child once')

  await delegateTask(writer.infra, supervisor, WORKER, delegation, operator())
  t.same(await typesOf(delegation.childTaskId), ['TaskCreated'], 'asked once more (an answer lost), nothing more is stored')
  t.equal((await typesOf(supervisor.taskId)).length, 3)
})

t.test('given the child and the supervisor in one batch, then the child is stored first, at the sequence before its delegation', async (t) => {
  const supervisor = await aRunningSupervisor()
  const delegation = { childTaskId: randomUUID(), agentType: 'email-marketing' as const, instruction: 'Write the launch email' }
  await delegateTask(infra, supervisor, WORKER, delegation, operator())
  const events = await streamEvents(infra, 'MATS_TASKS')
  const [created] = eventsOf(events, delegation.childTaskId, 'TaskCreated')
  const [named] = eventsOf(events, supervisor.taskId, 'TaskDelegated')
  t.equal(named?.seq, (created?.seq ?? 0) + 1)
  t.match(created?.data, { taskType: 'delegated', parentTaskId: supervisor.taskId, sessionId: supervisor.sessionId })
})

t.test('given a supervisor that is no longer running, then a delegation is refused and no child is created', async (t) => {
  const session = await aSession(infra, (await anAccount(infra)).id)
  const taskId = randomUUID()
  await createTask(infra, session.accountId, { taskId, sessionId: session.sessionId, agentType: 'growth-marketer', instruction: 'Plan the quarter', title: null, priority: 'normal' }, operator())
  const delegation = { childTaskId: randomUUID(), agentType: 'seo' as const, instruction: 'Audit the site' }
  await t.rejects(delegateTask(infra, { accountId: session.accountId, taskId, sessionId: session.sessionId, priority: 'normal' }, WORKER, delegation, operator()), { name: 'ConflictError' })
  t.same(await typesOf(delegation.childTaskId), [])
})

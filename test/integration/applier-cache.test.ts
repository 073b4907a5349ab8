import { randomUUID } from 'node:crypto'
import t, { type Test } from 'tap'
import { BatchApplier } from '../../projections/engine/apply.js'
import { collectionName } from '../../projections/engine/read-models.js'
import { ALL_PROJECTIONS, ReadModels, tasksProjection } from '../../projections/index.js'
import type { RecordedEvent } from '../../src/domain/message.js'
import { TaskReruns } from '../../src/domain/tasks/reruns.js'
import { Task, type TaskEvent } from '../../src/domain/tasks/task.js'
import { endedTaskDrafts } from '../helpers/mothers.js'
import { commandsSent, monitoredClient } from '../helpers/mongo-commands.js'
import { startServers } from '../helpers/servers.js'
import { connectTestInfra } from '../helpers/service.js'

const servers = await startServers(t)
const infra = await connectTestInfra(t, servers)
const monitored = monitoredClient(t, servers.mongoUrl)
const metadata = () => ({ correlationId: randomUUID(), causationId: null, keyId: null })

/** A task's events as stored in the log: created, started, then completed (or failed); `upTo` keeps the first few. */
async function aStoredTask(accountId: string, { upTo = 3, ending = 'completed' }: { upTo?: number; ending?: 'completed' | 'failed' } = {}): Promise<RecordedEvent[]> {
  const [created, started, completed] = endedTaskDrafts(randomUUID(), 'Plan the launch posts')
  const failed: TaskEvent = { type: 'TaskFailed', data: { reason: 'agent_error', error: 'the model went away', usage: null, costMicros: 0, billingMonth: '2026-11', reservedMicros: 10_000 } }
  const drafts = [created, started, ending === 'completed' ? completed : failed].slice(0, upTo) as TaskEvent[]
  return infra.events.append(Task, { accountId, aggregateId: randomUUID() }, drafts, { expectedVersion: 0, metadata: metadata(), now: new Date() })
}

/** A re-run of an ended task recorded, as `mats tasks rerun` leaves it: an event of the ended task's document. */
async function aRerunOf(task: RecordedEvent): Promise<{ events: RecordedEvent[]; rerunTaskId: string }> {
  const key = { accountId: task.accountId, aggregateId: task.aggregateId }
  const rerunTaskId = randomUUID()
  const events = await infra.events.append(TaskReruns, key, [{ type: 'TaskRerunCreated', data: { rerunTaskId } }], { expectedVersion: 0, metadata: metadata(), now: new Date() })
  return { events, rerunTaskId }
}

/** The reads of the tasks collection sent from now to the end of the test. */
const taskReads = (t: Test) => commandsSent(t, monitored, (event) => (event.commandName === 'find' && event.command.find === collectionName(tasksProjection, 1) ? event : undefined))

async function anApplier(t: Test): Promise<{ applier: BatchApplier; readModels: ReadModels }> {
  const readModels = new ReadModels(monitored.db(`applier_${randomUUID().slice(0, 8)}`), ALL_PROJECTIONS)
  await readModels.init()
  t.teardown(() => readModels.close())
  return { applier: new BatchApplier(readModels.collection(tasksProjection), tasksProjection), readModels }
}

t.test('given a running task, a completed one and a failed one applied, when each gets another event, then only the ended ones are read back: settled documents leave memory', async (t) => {
  const accountId = randomUUID()
  const [completed, failed, running] = [await aStoredTask(accountId), await aStoredTask(accountId, { ending: 'failed' }), await aStoredTask(accountId, { upTo: 2 })]
  const { applier } = await anApplier(t)
  await applier.apply([...completed, ...failed, ...running])
  const reads = taskReads(t)

  const finished = await infra.events.append(Task, { accountId, aggregateId: running[0]?.aggregateId ?? '' }, [endedTaskDrafts(randomUUID(), 'x')[2] as TaskEvent], {
    expectedVersion: running[1]?.seq ?? 0,
    metadata: metadata(),
    now: new Date(),
  })
  await applier.apply(finished)
  t.equal(reads.length, 0, 'the running task it wrote is still held: its TaskCompleted needs no read')

  await applier.apply([...(await aRerunOf(completed[0]!)).events, ...(await aRerunOf(failed[0]!)).events])
  t.equal(reads.length, 1, 'the completed and the failed task are no longer held: both are read back, in one read')
})

t.test('given a batch where a task ends and is then re-run, when the re-run is applied again, then the document is still held: only a batch that ends on a settling event lets go', async (t) => {
  const accountId = randomUUID()
  const completed = await aStoredTask(accountId)
  const rerun = await aRerunOf(completed[0]!)
  const { applier, readModels } = await anApplier(t)
  await applier.apply([...completed, ...rerun.events])
  const reads = taskReads(t)

  await applier.apply(rerun.events)

  t.equal(reads.length, 0, 'no read')
  t.match(await readModels.collection(tasksProjection).findOne({ _id: completed[0]?.aggregateId ?? '' }), {
    status: 'completed',
    reruns: [rerun.rerunTaskId],
  })
})

t.test('given an ended task no longer held, when its history is applied again, then it is read once and its document is as the first pass left it', async (t) => {
  const { applier, readModels } = await anApplier(t)
  const ended = await aStoredTask(randomUUID())
  const id = ended[0]?.aggregateId ?? ''
  await applier.apply(ended)
  const first = await readModels.collection(tasksProjection).findOne({ _id: id })
  const reads = taskReads(t)

  await applier.apply(ended)

  t.equal(reads.length, 1, 'read back once')
  t.match(first, { status: 'completed', _seq: ended[2]?.seq }, 'ended, at its last event')
  t.same(await readModels.collection(tasksProjection).findOne({ _id: id }), first, 'the replay changed nothing')
})

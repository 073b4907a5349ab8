import { randomUUID } from 'node:crypto'
import { type CommandStartedEvent, MongoClient } from 'mongodb'
import t, { type Test } from 'tap'
import { BatchApplier } from '../../projections/engine/apply.js'
import { collectionName } from '../../projections/engine/read-models.js'
import { ALL_PROJECTIONS, ReadModels, tasksProjection } from '../../projections/index.js'
import type { RecordedEvent } from '../../src/domain/message.js'
import { Task, type TaskEvent } from '../../src/domain/tasks/task.js'
import { startServers } from '../helpers/servers.js'
import { connectTestInfra } from '../helpers/service.js'
import { endedTaskDrafts } from '../helpers/mothers.js'

const servers = await startServers(t)
const infra = await connectTestInfra(t, servers)
const monitored = new MongoClient(servers.mongoUrl, { monitorCommands: true })
t.teardown(() => monitored.close())

/** A task's events as stored in the log: its whole history, or the first `upTo` of it. */
async function aStoredTask(accountId: string, upTo = 3): Promise<RecordedEvent[]> {
  const drafts: TaskEvent[] = endedTaskDrafts(randomUUID(), 'Plan the launch posts').slice(0, upTo)
  const metadata = { correlationId: randomUUID(), causationId: null, keyId: null }
  return infra.events.append(Task, { accountId, aggregateId: randomUUID() }, drafts, { expectedVersion: 0, metadata, now: new Date() })
}

/** The reads of the tasks collection sent from now to the end of the test. */
function taskReads(t: Test): { count: number } {
  const reads = { count: 0 }
  const listener = (event: CommandStartedEvent) => {
    if (event.commandName === 'find' && event.command.find === collectionName(tasksProjection, 1)) reads.count++
  }
  monitored.on('commandStarted', listener)
  t.teardown(() => monitored.off('commandStarted', listener))
  return reads
}

async function anApplier(t: Test): Promise<{ applier: BatchApplier; readModels: ReadModels }> {
  const readModels = new ReadModels(monitored.db(`applier_${randomUUID().slice(0, 8)}`), ALL_PROJECTIONS)
  await readModels.init()
  t.teardown(() => readModels.close())
  return { applier: new BatchApplier(readModels.collection(tasksProjection), tasksProjection), readModels }
}

t.test('given a running task and an ended one applied, when each gets another event, then only the ended one is read back: settled documents leave memory', async (t) => {
  const accountId = randomUUID()
  const [ended, running] = [await aStoredTask(accountId), await aStoredTask(accountId)]
  const { applier } = await anApplier(t)
  await applier.apply([...ended, ...running.slice(0, 2)])
  const reads = taskReads(t)

  await applier.apply(running.slice(2))
  t.equal(reads.count, 0, 'the running task it wrote is still held: its TaskCompleted needs no read')

  // The ended task's TaskCompleted once more, as a replay delivers it.
  await applier.apply(ended.slice(2))
  t.equal(reads.count, 1, 'the ended task is no longer held: it is read back, once')
})

t.test('given an ended task no longer held, when its history is applied again, then its document is as the first pass left it', async (t) => {
  const { applier, readModels } = await anApplier(t)
  const ended = await aStoredTask(randomUUID())
  const id = ended[0]?.aggregateId ?? ''
  await applier.apply(ended)
  const first = await readModels.collection(tasksProjection).findOne({ _id: id })

  await applier.apply(ended)

  t.match(first, { status: 'completed', _seq: ended[2]?.seq }, 'ended, at its last event')
  t.same(await readModels.collection(tasksProjection).findOne({ _id: id }), first, 'the replay changed nothing')
})

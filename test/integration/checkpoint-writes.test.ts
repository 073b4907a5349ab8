import { randomUUID } from 'node:crypto'
import { type CommandStartedEvent, MongoClient } from 'mongodb'
import t from 'tap'
import { ALL_PROJECTIONS, PARTITIONS, ProjectionRunner, ReadModels } from '../../projections/index.js'
import { byStream } from '../../projections/engine/streams.js'
import { MAX_REPLACES_PER_BULK } from '../../projections/engine/apply.js'
import { startServers } from '../helpers/servers.js'
import { connectTestInfra } from '../helpers/service.js'
import { aTaskThatIs } from '../helpers/task-histories.js'

const servers = await startServers(t)
const infra = await connectTestInfra(t, servers)
const monitored = new MongoClient(servers.mongoUrl, { monitorCommands: true })
t.teardown(() => monitored.close())
const tasksStream = byStream(ALL_PROJECTIONS).get('MATS_TASKS') ?? []

/** The update commands sent to the checkpoints' collection, each with how many updates it carried. */
function checkpointUpdates(client: MongoClient): number[] {
  const sizes: number[] = []
  client.on('commandStarted', (event: CommandStartedEvent) => {
    if (event.commandName === 'update' && event.command.update === 'projection_checkpoints') sizes.push((event.command.updates as unknown[]).length)
  })
  return sizes
}

async function freshReadModels(): Promise<ReadModels> {
  const readModels = new ReadModels(monitored.db(`checkpoints_${randomUUID().slice(0, 8)}`), ALL_PROJECTIONS)
  await readModels.init()
  return readModels
}

t.test('given a batch for every projection of the tasks stream, when it is applied, then their checkpoints move in bulk writes, not one write each', async (t) => {
  const accountId = randomUUID()
  for (let i = 0; i < 3; i++) await aTaskThatIs(infra, accountId, randomUUID(), 'completed', `Checkpoint brief ${i}`)
  const last = (await infra.jsm.streams.info('MATS_TASKS')).state.last_seq
  const readModels = await freshReadModels()
  const sizes = checkpointUpdates(monitored)
  const deps = { js: infra.js, jsm: infra.jsm, link: infra.link, readModels, log: infra.log }

  await new ProjectionRunner(deps, tasksStream, { untilCaughtUp: true, batchSize: 1000 }).run()

  // A first batch moves every partition of every projection (each starts behind everywhere).
  const moved = tasksStream.length * PARTITIONS
  t.same(sizes, sizes.length === 1 ? [moved] : [MAX_REPLACES_PER_BULK, moved - MAX_REPLACES_PER_BULK], `${moved} checkpoints in ${Math.ceil(moved / MAX_REPLACES_PER_BULK)} commands, not ${moved}`)
  for (const projection of tasksStream) t.same(await readModels.partitionCheckpoints(projection, 1), Array(PARTITIONS).fill(last), `${projection.name}: every partition at the stream's last event`)
})

t.test('given checkpoints moved together, when an older position is written, then none moves back', async (t) => {
  const readModels = await freshReadModels()
  const moves = tasksStream.map((projection) => ({ projection, generation: 1, partitions: [0, 1, 2, 3, 4, 5, 6, 7] }))
  await readModels.advanceAll(moves, 90)
  await readModels.advanceAll(moves.slice(0, 2), 40)
  for (const projection of tasksStream) t.same(await readModels.partitionCheckpoints(projection, 1), Array(PARTITIONS).fill(90), projection.name)
})

t.test("given two writers creating the same checkpoints at once, then neither fails on the other's creation", async (t) => {
  const moves = tasksStream.map((projection) => ({ projection, generation: 1, partitions: [0, 1, 2, 3, 4, 5, 6, 7] }))
  for (let round = 0; round < 5; round++) {
    const one = await freshReadModels()
    const other = new ReadModels(one.db, ALL_PROJECTIONS)
    await other.init()
    // The same position from both: which update lands last does not matter, only that both land.
    await Promise.all([one.advanceAll(moves, 20), other.advanceAll(moves, 20)])
    for (const projection of tasksStream) t.same(await one.partitionCheckpoints(projection, 1), Array(PARTITIONS).fill(20), `round ${round}: ${projection.name}`)
  }
})

import { randomUUID } from 'node:crypto'
import { DeliverPolicy, type JsMsg } from '@nats-io/jetstream'
import t, { type Test } from 'tap'
import { byStream } from '../../projections/engine/streams.js'
import { ALL_PROJECTIONS, ProjectionRunner, tasksProjection } from '../../projections/index.js'
import { readModelsIn } from '../helpers/read-models.js'
import { startServers } from '../helpers/servers.js'
import { connectTestInfra } from '../helpers/service.js'
import { aTaskThatIs } from '../helpers/task-histories.js'

/**
 * With tracing off (this process starts no SDK), a projector's batches read no message's headers:
 * nats.js parses a message's headers on first access and every event has some (`Nats-Msg-Id`),
 * for span links the no-op tracer would drop (2.3 % of a burst's allocations). The reads are
 * counted on nats.js' own JetStream message class, over a real server's deliveries.
 */

const servers = await startServers(t)
const infra = await connectTestInfra(t, servers)
const tasksStream = byStream(ALL_PROJECTIONS).get('MATS_TASKS') ?? []

/** Counts every read of a delivered JetStream message's headers in this process, until the test ends. */
async function countHeaderReads(t: Test): Promise<{ count: number }> {
  const consumer = await infra.js.consumers.get('MATS_TASKS', { deliver_policy: DeliverPolicy.Last })
  const sample = await consumer.next({ expires: 5000 })
  if (!sample) throw new Error('no message to learn the message class from')
  const prototype: JsMsg = Object.getPrototypeOf(sample)
  const original = Object.getOwnPropertyDescriptor(prototype, 'headers')
  if (!original?.get) throw new Error("nats.js' message has no headers getter: this test must learn the new shape")
  const reads = { count: 0 }
  const read = original.get
  Object.defineProperty(prototype, 'headers', {
    ...original,
    get(this: JsMsg) {
      reads.count++
      return read.call(this)
    },
  })
  t.teardown(() => Object.defineProperty(prototype, 'headers', original))
  return reads
}

t.test('given tracing is off, when the projector applies a stream of events, then no message header is read', async (t) => {
  const accountId = randomUUID()
  const taskIds: string[] = []
  for (let i = 0; i < 3; i++) taskIds.push(await aTaskThatIs(infra, accountId, randomUUID(), 'completed', `Header brief ${i}`))
  const readModels = await readModelsIn(infra, `headers_${randomUUID().slice(0, 8)}`)
  t.teardown(() => readModels.close())
  const reads = await countHeaderReads(t)

  await new ProjectionRunner({ js: infra.js, jsm: infra.jsm, link: infra.link, readModels, log: infra.log }, tasksStream, { untilCaughtUp: true }).run()

  const tasks = await readModels.collection(tasksProjection).countDocuments({ accountId })
  t.equal(tasks, taskIds.length, 'the projector applied the tasks')
  t.equal(reads.count, 0, 'no delivered message had its headers parsed')
})

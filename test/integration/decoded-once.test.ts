import { randomUUID } from 'node:crypto'
import t from 'tap'
import { Task } from '../../src/domain/tasks/task.js'
import { decodedEvents } from '../../src/infra/nats/decoded-events.js'
import { LogReader } from '../../src/infra/nats/log-reader.js'
import { accountSubjects, streamOf } from '../../src/infra/nats/subjects.js'
import { startServers } from '../helpers/servers.js'
import { connectTestInfra } from '../helpers/service.js'
import { aTaskThatIs } from '../helpers/task-histories.js'

/**
 * A process decodes a stored event once (decoded-events.ts), over a real server: an aggregate
 * loaded again is answered with the events decoded the first time; a scan of an account's
 * history, read once, keeps nothing.
 */

const servers = await startServers(t)
const infra = await connectTestInfra(t, servers)

t.test('given a task loaded, when it is loaded again, then its events are the ones decoded the first time', async (t) => {
  const accountId = randomUUID()
  const key = { accountId, aggregateId: await aTaskThatIs(infra, accountId, randomUUID(), 'completed', 'Decoded once brief') }
  const first = await infra.events.load(Task, key)

  const again = await infra.events.load(Task, key)

  t.equal(again.events.length, first.events.length)
  t.ok(first.events.length >= 3, `${first.events.length} events`)
  for (const [i, event] of again.events.entries()) t.equal(event, first.events[i], `${event.type}: the same object`)
})

t.test("given an account's history, when it is read a page at a time, then nothing read is kept", async (t) => {
  const accountId = randomUUID()
  await aTaskThatIs(infra, accountId, randomUUID(), 'completed', 'Paged history brief')
  const reader = new LogReader(infra)
  const stream = streamOf('task')
  const held = decodedEvents.held.entries

  const page = await reader.readPage(stream, accountSubjects('task', accountId), 1, 100)
  const again = await reader.readPage(stream, accountSubjects('task', accountId), 1, 100)

  t.ok(page.events.length >= 3, `${page.events.length} events read`)
  t.equal(decodedEvents.held.entries, held, 'none kept')
  t.not(again.events[0], page.events[0], 'decoded again')
})

import { randomUUID } from 'node:crypto'
import t, { type Test } from 'tap'
import { FanOutLane } from '../../consumers/webhooks/fan-out-lane.js'
import { Slots } from '../../consumers/webhooks/slots.js'
import { PoisonMessages } from '../../src/infra/mongo/poison-messages.js'
import { EventStoreUnavailableError } from '../../src/infra/nats/event-store-errors.js'
import { FanOutCursors } from '../../src/infra/nats/fan-out-cursors.js'
import type { Read } from '../../src/infra/nats/log-reader.js'
import { startServers } from '../helpers/servers.js'
import { connectTestInfra, testLog } from '../helpers/service.js'
import { aRecordedTaskCreated } from '../helpers/mothers.js'
import { until } from '../helpers/wait.js'

// A lane first rung over a backlog stored while no process fanned out (FanOutLanes' first sight
// of a cursor) has heard of no sequence: it must read on to the log's end whatever happens on
// the way. It used to stop for good after one failure or one short page (a read of "about" a
// page), until the account's next event.

const servers = await startServers(t)
const infra = await connectTestInfra(t, servers)
const BACKLOG = 100

/** A lane over a log of BACKLOG events of one account, its cursor at 0, rung as on first sight; `quirk` spoils one read or one fan-out. */
async function aBacklogLane(t: Test, quirk: { failSecondFanOut?: boolean; shortSecondRead?: boolean }) {
  const cursors = await FanOutCursors.open(infra.js, { replicas: 1 })
  const accountId = randomUUID()
  await cursors.ensure(accountId, 0)
  const log = Array.from({ length: BACKLOG }, (_, i) => aRecordedTaskCreated(accountId, i + 1))
  let reads = 0
  let fanOuts = 0
  const read = async (_account: string, fromSeq: number, max: number): Promise<Read> => {
    reads++
    const events = log.filter((event) => event.seq >= fromSeq).slice(0, quirk.shortSecondRead && reads === 2 ? max - 1 : max)
    return { events, undecodable: [], lastSeq: events.at(-1)?.seq ?? 0 }
  }
  const fanOut = async () => {
    fanOuts++
    if (quirk.failSecondFanOut && fanOuts === 2) throw new EventStoreUnavailableError('NATS timed out')
  }
  const deps = { cursors, read, fanOut, slots: new Slots(1, 1), poison: new PoisonMessages(infra.db, testLog()), holder: randomUUID(), log: testLog() }
  const lane = new FanOutLane(accountId, deps)
  t.teardown(() => lane.stop())
  lane.ring()
  return { cursorSeq: async () => (await cursors.get(accountId))?.seq }
}

t.test('given a backlog, when the lane first rung over it fails one page for an outage, then it goes on to the end after its retry', async (t) => {
  const lane = await aBacklogLane(t, { failSecondFanOut: true })
  await until('the cursor at the end of the backlog', async () => (await lane.cursorSeq()) === BACKLOG, 30_000)
  t.equal(await lane.cursorSeq(), BACKLOG)
})

t.test('given a backlog, when the lane first rung over it reads one short page, then it goes on to the end', async (t) => {
  const lane = await aBacklogLane(t, { shortSecondRead: true })
  await until('the cursor at the end of the backlog', async () => (await lane.cursorSeq()) === BACKLOG, 30_000)
  t.equal(await lane.cursorSeq(), BACKLOG)
})

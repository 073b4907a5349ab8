import { randomUUID } from 'node:crypto'
import t from 'tap'
import { FanOutLane } from '../../consumers/webhooks/fan-out-lane.js'
import { Slots } from '../../consumers/webhooks/slots.js'
import type { RecordedEvent } from '../../src/domain/message.js'
import { PoisonMessages } from '../../src/infra/mongo/poison-messages.js'
import { FanOutCursors } from '../../src/infra/nats/fan-out-cursors.js'
import type { Read } from '../../src/infra/nats/log-reader.js'
import { startServers } from '../helpers/servers.js'
import { connectTestInfra, testLog } from '../helpers/service.js'
import { aRecordedTaskCreated } from '../helpers/mothers.js'
import { until } from '../helpers/wait.js'

/**
 * Issue 19: each event after a task's first waited for its lane to read the log once more
 * (finding nothing), let its claim go, read the cursor and claim it again. A lane that caught up
 * now keeps its claim a moment and fans the next event out at once (ADR 0042, later). The
 * cursors are the real KV bucket; the account's log is a list the test appends to, so that the
 * lane's reads can be counted.
 */

const servers = await startServers(t)
const infra = await connectTestInfra(t, servers)

t.test(
  'given a lane that fanned out an event, when the account’s next event is rung soon after, then it is read and fanned out without the empty read and claim in between, and the claim is let go afterwards',
  async (t) => {
    const cursors = await FanOutCursors.open(infra.js, { replicas: 1 })
    const accountId = randomUUID()
    await cursors.ensure(accountId, 0)
    const log: RecordedEvent[] = []
    const reads: number[] = []
    const fannedOut: number[] = []
    const read = async (_account: string, fromSeq: number, max: number): Promise<Read> => {
      reads.push(fromSeq)
      const events = log.filter((event) => event.seq >= fromSeq).slice(0, max)
      return { events, undecodable: [], lastSeq: events.at(-1)?.seq ?? 0 }
    }
    const holder = randomUUID()
    const lane = new FanOutLane(accountId, {
      cursors,
      read,
      fanOut: async (_account, events) => void fannedOut.push(...events.map((event) => event.seq)),
      slots: new Slots(1, 1),
      poison: new PoisonMessages(infra.db, testLog()),
      holder,
      log: testLog(),
    })
    t.teardown(() => lane.stop())

    // Given
    log.push(aRecordedTaskCreated(accountId, 10))
    lane.ring(10)
    await until('the first event fanned out and the cursor past it', async () => (await cursors.get(accountId))?.seq === 10)

    // When
    log.push(aRecordedTaskCreated(accountId, 11))
    lane.ring(11)

    // Then
    const released = await until('the cursor past the second event, its claim let go', async () => {
      const cursor = await cursors.get(accountId)
      return cursor?.seq === 11 && cursor.holder === null && cursor
    })
    t.same(fannedOut, [10, 11], 'each event fanned out once, in order')
    t.same(reads, [1, 11], 'one read per event: no empty read between them')
    // The bucket holds this cursor alone: its revision counts the writes (created, claimed, moved twice, let go).
    t.equal(released.revision, 5, 'claimed once for both events')
  },
)

import { randomUUID } from 'node:crypto'
import t, { type Test } from 'tap'
import type { AppContext } from '../../src/app-context.js'
import { Session, type SessionEvent } from '../../src/domain/sessions/session.js'
import { SERVER_BATCHES_PER_STREAM } from '../../src/infra/nats/atomic-batch.js'
import { streamEvents } from '../helpers/event-log.js'
import { startServers } from '../helpers/servers.js'
import { connectTestInfra } from '../helpers/service.js'

/**
 * Invariant 5 under a burst (ADR 0034): nats-server holds at most 50 atomic batches open per
 * stream and refuses the next; the event store bounds its own and sends a refused batch again,
 * never storing a prefix or an event twice. The deadline is raised to 10 s: this is about
 * what is stored, not how fast, on a machine shared with other work.
 */
const servers = await startServers(t)
const SLOW_MACHINE = { NATS_TIMEOUT_MS: '10000' }
const reader = await connectTestInfra(t, servers)
const BURST = 200
const FACTS = ['Sells model rockets', 'Ships only to North America', 'Has a loyalty program']

/** `count` decisions of three events at once, each on a session of its own; the session ids. */
async function burst(writer: AppContext, accountId: string, count: number): Promise<string[]> {
  const metadata = { correlationId: randomUUID(), causationId: null, keyId: null }
  const sessions = Array.from({ length: count }, () => randomUUID())
  await Promise.all(
    sessions.map((aggregateId) => {
      const drafts: SessionEvent[] = FACTS.map((fact) => ({ type: 'SessionFactLearned', data: { fact, taskId: aggregateId } }))
      return writer.events.append(Session, { accountId, aggregateId }, drafts, { expectedVersion: 0, metadata, now: new Date() })
    }),
  )
  return sessions
}

/** For each session, its facts as the log holds them, in log order. */
async function factsBySession(accountId: string): Promise<Map<string, string[]>> {
  const facts = new Map<string, string[]>()
  for (const event of await streamEvents(reader, 'MATS_SESSIONS')) {
    if (event.accountId !== accountId || event.type !== 'SessionFactLearned') continue
    const data = event.data as { fact: string }
    facts.set(event.aggregateId, [...(facts.get(event.aggregateId) ?? []), data.fact])
  }
  return facts
}

/** A series of the writer's /metrics for MATS_SESSIONS (0 when it has none yet). */
async function sessionsSeries(writer: AppContext, name: string): Promise<number> {
  const line = (await writer.metrics.text()).split('\n').find((l) => l.startsWith(`${name}{`) && l.includes('stream="MATS_SESSIONS"'))
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1))
}

async function assertEachStoredOnce(t: Test, accountId: string, sessions: readonly string[]): Promise<void> {
  const stored = await factsBySession(accountId)
  t.equal(stored.size, sessions.length, 'every decision is stored')
  t.same(
    sessions.filter((id) => JSON.stringify(stored.get(id)) !== JSON.stringify(FACTS)),
    [],
    'each with all of its events, once, in order',
  )
}

t.test(`given ${BURST} decisions of three events on one stream at once from one process, then all are stored, each whole and once`, async (t) => {
  const writer = await connectTestInfra(t, servers, SLOW_MACHINE)
  const accountId = randomUUID()
  const sessions = await burst(writer, accountId, BURST)
  await assertEachStoredOnce(t, accountId, sessions)
  // And its metrics show the batches that waited for one of its 16 slots (ADR 0034, docs/operations.md#metrics)
  const waited = await sessionsSeries(writer, 'mats_event_store_batch_slot_waits_total')
  t.ok(waited >= BURST - 16, `at least ${BURST - 16} of ${BURST} batches waited for a slot (${waited})`)
  t.equal(await sessionsSeries(writer, 'mats_event_store_batch_slot_wait_seconds_count'), BURST, 'each batch has its wait measured')
  t.ok((await sessionsSeries(writer, 'mats_event_store_batch_slot_wait_seconds_sum')) > 0, 'and the waits add up to some time')
  t.equal(await sessionsSeries(writer, 'mats_event_store_batch_slot_timeouts_total'), 0, 'none waited past its deadline')
})

t.test(
  `given a process that does not bound its batches (more than the server's ${SERVER_BATCHES_PER_STREAM}), then the batches the server refuses are sent again and all are stored, each whole and once`,
  async (t) => {
    const writer = await connectTestInfra(t, servers, { ...SLOW_MACHINE, NATS_BATCHES_PER_STREAM: '1000' })
    const accountId = randomUUID()
    const sessions = await burst(writer, accountId, BURST)
    await assertEachStoredOnce(t, accountId, sessions)
    const resent = await sessionsSeries(writer, 'mats_event_store_batch_resends_total')
    t.ok(resent > 0, `the batches sent again are counted (${resent})`)
    t.equal(await sessionsSeries(writer, 'mats_event_store_batch_slot_waits_total'), 0, 'none waited for a slot of its own')
  },
)

t.test('given four processes of 16 batches each (64, more than the server holds) bursting at once, then all are stored, each whole and once', async (t) => {
  const writers = await Promise.all([1, 2, 3, 4].map(() => connectTestInfra(t, servers, { ...SLOW_MACHINE, NATS_BATCHES_PER_STREAM: '16' })))
  const accountId = randomUUID()
  const sessions = (await Promise.all(writers.map((writer) => burst(writer, accountId, BURST / 4)))).flat()
  await assertEachStoredOnce(t, accountId, sessions)
})

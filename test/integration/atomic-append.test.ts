import { randomUUID } from 'node:crypto'
import t from 'tap'
import { execute, operator } from '../../src/commands/execute.js'
import { learnSessionFacts } from '../../src/commands/learn-session-facts/learn-session-facts.js'
import { decideChangeAutonomy, requireOpenSession, Session, type SessionEvent } from '../../src/domain/sessions/session.js'
import { ConcurrencyError, EventStoreUnavailableError } from '../../src/infra/nats/event-store.js'
import { ensureStreams } from '../../src/infra/nats/streams.js'
import { STREAM_NAMES } from '../../src/infra/nats/subjects.js'
import { eventsOf, streamEvents } from '../helpers/event-log.js'
import { startServers } from '../helpers/servers.js'
import { connectTestInfra } from '../helpers/service.js'
import { aProxiedWriter, aSession, heldBack, twoTasksLearning } from '../helpers/decisions.js'
import { until } from '../helpers/wait.js'

/** Invariant 5: a decision's events are stored all or none, never a prefix (ADR 0026). */
const servers = await startServers(t)
const infra = await connectTestInfra(t, servers)
const FACTS = ['Sells model rockets', 'Ships only to North America', 'Has a loyalty program']
const factDrafts = (taskId: string): SessionEvent[] => FACTS.map((fact) => ({ type: 'SessionFactLearned', data: { fact, taskId } }))
const learnedFacts = async (sessionId: string) => eventsOf(await streamEvents(infra, 'MATS_SESSIONS'), sessionId, 'SessionFactLearned').map((e) => e.data)

t.test('given a decision of three events whose connection is cut after its first message, then nothing is stored, and asked again it stores all three', async (t) => {
  const session = await aSession(infra)
  const writer = await aProxiedWriter(t, servers)
  // Given: the server has the batch's first message (it answered it) and the connection drops before the second
  const taskId = randomUUID()
  const held = writer.proxy.holdFrom('Nats-Batch-Sequence: 2\r\n')
  const learning = learnSessionFacts(writer.infra, session, taskId, FACTS, operator())
  await heldBack(held, learning)
  writer.proxy.cut()
  // When
  await t.rejects(learning, EventStoreUnavailableError, 'the append is not acknowledged')
  // Then
  t.same(await learnedFacts(session.sessionId), [], 'no prefix of the decision is stored')
  t.same(requireOpenSession((await infra.events.load(Session, session)).state).facts, [])

  writer.proxy.restore()
  await until('the writer to reconnect', () => writer.infra.link.isUp, 20_000)
  t.equal(await learnSessionFacts(writer.infra, session, taskId, FACTS, operator()), 3, 'the retry records every fact')
  t.same(
    await learnedFacts(session.sessionId),
    FACTS.map((fact) => ({ fact, taskId })),
  )
})

t.test('given another writer appends between the first message and the commit, then the batch stores nothing and fails as a conflict', async (t) => {
  const session = await aSession(infra)
  const writer = await aProxiedWriter(t, servers)
  const loaded = await infra.events.load(Session, session)
  const taskId = randomUUID()
  const metadata = { correlationId: randomUUID(), causationId: null, keyId: null }
  // Given: the commit waits while another writer changes the session
  const held = writer.proxy.holdFrom('Nats-Batch-Commit')
  const appending = writer.infra.events.append(Session, session, factDrafts(taskId), { expectedVersion: loaded.version, metadata, now: new Date() })
  await heldBack(held, appending)
  await execute(infra, Session, session, (s) => decideChangeAutonomy({ autonomy: 'autonomous' }, s), operator())
  // When
  writer.proxy.release()
  // Then
  await t.rejects(appending, ConcurrencyError)
  const after = await infra.events.load(Session, session)
  t.same(
    after.events.map((e) => e.type),
    ['SessionCreated', 'SessionAutonomyChanged'],
    'none of the three events is stored',
  )

  const appended = await writer.infra.events.append(Session, session, factDrafts(taskId), { expectedVersion: after.version, metadata, now: new Date() })
  const reloaded = await infra.events.load(Session, session)
  t.same(
    appended.map((e) => e.seq),
    reloaded.events.slice(2).map((e) => e.seq),
    'appended on the new version: three contiguous sequences, as returned',
  )
  t.equal(reloaded.version, appended.at(-1)?.seq)
})

t.test('given two tasks of one session learning at once, one held back after its first fact while the other is stored, then every fact of both is kept', async (t) => {
  const race = await twoTasksLearning(infra, await aProxiedWriter(t, servers))
  t.same(
    race.tasks.map((task) => task.recorded),
    [3, 3],
    'each task recorded its three facts',
  )
  t.same(race.kept.toSorted(), race.tasks.flatMap((task) => task.facts).toSorted())
})

t.test('given a stream made before atomic batches, when a process starts, then it allows them', async (t) => {
  // Given
  await infra.jsm.streams.update('MATS_SESSIONS', { allow_atomic: false })
  t.not((await infra.jsm.streams.info('MATS_SESSIONS')).config.allow_atomic, true, 'the stream refuses atomic batches')
  // When
  await ensureStreams(infra.jsm, { replicas: 1 })
  // Then
  for (const stream of STREAM_NAMES) t.equal((await infra.jsm.streams.info(stream)).config.allow_atomic, true, stream)
  t.equal(await learnSessionFacts(infra, await aSession(infra), randomUUID(), FACTS, operator()), 3, 'a decision of three events is stored')
})

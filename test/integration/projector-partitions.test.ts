import { randomUUID } from 'node:crypto'
import { Kvm } from '@nats-io/kv'
import t from 'tap'
import { ALL_PROJECTIONS, PARTITIONS } from '../../projections/index.js'
import { Session } from '../../src/domain/sessions/session.js'
import { ConcurrencyError, EventStoreUnavailableError } from '../../src/infra/nats/event-store-errors.js'
import type { AppContext } from '../../src/app-context.js'
import { exited, startMats } from '../helpers/processes.js'
import { cleanPass, readModelsIn, snapshot } from '../helpers/read-models.js'
import { otherDatabase, startServers } from '../helpers/servers.js'
import { connectTestInfra } from '../helpers/service.js'
import { starvationMeter } from '../helpers/starvation.js'
import { until } from '../helpers/wait.js'

const LEASE_MS = 2000
const DATABASE = 'partitioned'

const servers = await startServers(t)
const infra = await connectTestInfra(t, servers)
const env = { NATS_URL: servers.natsUrl, MONGODB_URL: otherDatabase(servers, DATABASE), PROJECTOR_LEASE_MS: String(LEASE_MS) }

/**
 * Sessions of many accounts, so that every partition has events; appended straight to the log,
 * as a client would on a loaded machine: an append answered unavailable is sent again, and one
 * found stored after all (its guard refuses the retry) counts as stored.
 */
async function appendSessions(infra: AppContext, count: number): Promise<void> {
  const metadata = { correlationId: randomUUID(), causationId: null, keyId: null }
  await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const key = { accountId: randomUUID(), aggregateId: randomUUID() }
      const created = [{ type: 'SessionCreated' as const, data: { name: `session ${i}`, companyName: null, companyUrl: null, industry: null, targetAudience: null } }]
      const append = () => infra.events.append(Session, key, created, { expectedVersion: 0, metadata, now: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, i)) })
      await until(
        `session ${i} to be stored`,
        () =>
          append().then(
            () => true,
            (err: unknown) => {
              if (err instanceof ConcurrencyError) return true
              if (err instanceof EventStoreUnavailableError) return false
              throw err
            },
          ),
        60_000,
        200,
      )
    }),
  )
}

/** Who holds each partition of the sessions projection: memberId by partition. */
async function holders(): Promise<Map<number, string>> {
  const held = new Map<number, string>()
  const kv = await new Kvm(infra.js).open('mats_projector_leases')
  for (let partition = 0; partition < PARTITIONS; partition++) {
    // Before a projector has created the bucket, nobody holds anything.
    const entry = await kv.get(`${DATABASE}.MATS_SESSIONS.${partition}`).catch(() => null)
    if (entry && entry.operation === 'PUT') held.set(partition, entry.string())
  }
  return held
}

const pidOf = (memberId: string) => Number(memberId.split(':')[1])

t.test('given two projector processes, they share the partitions; when the one writing some is killed, the other takes them over within the lease and the read models converge', async (t) => {
  const readModels = await readModelsIn(infra, DATABASE)
  const [first, second] = await Promise.all([startMats(t, ['--role', 'projector'], env), startMats(t, ['--role', 'projector'], env)])
  const shared = await until(
    'both projectors to hold partitions',
    async () => {
      const held = await holders()
      const members = new Set(held.values())
      return held.size === PARTITIONS && members.size === 2 ? held : undefined
    },
    20_000,
    100,
  )
  const counts = [...new Set(shared.values())].map((member) => [...shared.values()].filter((m) => m === member).length)
  t.same(counts, [PARTITIONS / 2, PARTITIONS / 2], `each process writes ${PARTITIONS / 2} of the ${PARTITIONS} partitions of a projection`)

  await appendSessions(infra, 400)
  const victim = [first, second].find((child) => child.pid === pidOf(shared.get(0)!))!
  const survivor = victim === first ? second : first
  victim.kill('SIGKILL')
  await exited(victim)
  const killedAt = Date.now()
  const starvation = starvationMeter(t)
  // Watched while the appends go on: their time (seconds on a loaded machine) is not the takeover's.
  const takenOver = until(
    'the survivor to hold every partition',
    async () => {
      const held = await holders()
      return held.size === PARTITIONS && [...held.values()].every((m) => pidOf(m) === survivor.pid)
    },
    30_000,
    50,
  ).then(() => Date.now() - killedAt)
  await appendSessions(infra, 400)
  starvation.within(t, await takenOver, 2 * LEASE_MS, `taken over after the kill (lease ${LEASE_MS} ms)`)

  const { state } = await infra.jsm.streams.info('MATS_SESSIONS')
  await until('the read models to catch up', async () => (await readModels.checkpoint(ALL_PROJECTIONS.find((p) => p.name === 'sessions')!, 1)) >= state.last_seq, 20_000)
  t.same(await snapshot(readModels), await snapshot(await cleanPass(infra, 'partitioned_clean')), 'the same read models as one clean pass')
  const leases = await infra.jsm.streams.info('KV_mats_projector_leases')
  t.equal(leases.state.consumer_count, 0, 'renewing leases leaves no consumer behind on the server')
  survivor.kill('SIGTERM')
  t.equal(await exited(survivor), 0)
})

t.test('given projectors moving the checkpoints of different partitions at the same moment, then none moves another back', async (t) => {
  // Two processes' views of one database, as two projector processes have.
  const [one, two] = [await readModelsIn(infra, 'checkpoint_race'), await readModelsIn(infra, 'checkpoint_race')]
  const projection = ALL_PROJECTIONS[0]!
  const halves = [
    [0, 1, 2, 3],
    [4, 5, 6, 7],
  ] as const
  for (let seq = 1; seq <= 30; seq++) {
    await Promise.all([...halves[0].map((n) => one.advance(projection, 1, seq * 10 + n, [n])), ...halves[1].map((n) => two.advance(projection, 1, seq * 10 + n, [n]))])
  }
  t.same(await one.partitionCheckpoints(projection, 1), [300, 301, 302, 303, 304, 305, 306, 307], 'every partition where its own writer left it')
  await one.advance(projection, 1, 5, [0])
  t.equal((await one.partitionCheckpoints(projection, 1))[0], 300, 'never moved back by a slower writer')
})

t.test('given a checkpoint written by a version before per-partition documents, then it is still where the projection resumes', async (t) => {
  const readModels = await readModelsIn(infra, 'checkpoint_legacy')
  const projection = ALL_PROJECTIONS[0]!
  const legacy = readModels.db.collection<{ _id: string; partitions?: Record<string, number>; seq?: number }>('projection_checkpoints')
  await legacy.insertOne({ _id: `${projection.name}@1`, partitions: { 0: 40, 3: 70 }, seq: 20 })
  t.same(await readModels.partitionCheckpoints(projection, 1), [40, 20, 20, 70, 20, 20, 20, 20])
  await readModels.advance(projection, 1, 55, [0, 1])
  t.same(await readModels.partitionCheckpoints(projection, 1), [55, 55, 20, 70, 20, 20, 20, 20], 'the newer document wins where it is ahead')
})

import { randomUUID } from 'node:crypto'
import t from 'tap'
import { BatchApplier } from '../../projections/engine/apply.js'
import { ALL_PROJECTIONS, sessionsProjection } from '../../projections/index.js'
import { changeAccountBudget } from '../../src/commands/change-account-budget/change-account-budget.js'
import { operator } from '../../src/commands/execute.js'
import { revokeApiKey } from '../../src/commands/revoke-api-key/revoke-api-key.js'
import { Session, type SessionEvent } from '../../src/domain/sessions/session.js'
import { decodeEvent } from '../../src/infra/nats/event-store.js'
import type { AppContext } from '../../src/app-context.js'
import { aCaller, aKey, anAccount } from '../helpers/mothers.js'
import { collectOutput, exited, spawnMats } from '../helpers/processes.js'
import { catchUp, cleanPass, readModelsIn, snapshot } from '../helpers/read-models.js'
import { otherDatabase, startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'
import { until } from '../helpers/wait.js'

const servers = await startServers(t)
const service = await startTestService(t, servers)
const { infra } = service

/** A log with every event type the read models handle, plus a large backlog of sessions. */
async function seedLog(infra: AppContext, backlog: number): Promise<void> {
  for (let i = 0; i < 3; i++) {
    const account = await anAccount(infra, { monthlyBudgetUsd: 10 + i })
    await changeAccountBudget(infra, { accountId: account.id, monthlyBudgetUsd: 50 + i }, operator())
    await aKey(infra, account.id)
    const revoked = await aKey(infra, account.id, { name: 'revoked' })
    await revokeApiKey(infra, { keyId: revoked.id }, operator())
  }
  const accountId = randomUUID()
  const metadata = { correlationId: randomUUID(), causationId: null, keyId: null }
  // Appended straight to the log (no inline projection), as a busy API would leave it.
  for (let start = 0; start < backlog; start += 100) {
    await Promise.all(
      Array.from({ length: Math.min(100, backlog - start) }, (_, i) =>
        infra.events.append(
          Session,
          { accountId, aggregateId: randomUUID() },
          [{ type: 'SessionCreated', data: { name: `backlog ${start + i}`, companyName: null, companyUrl: null, industry: null, targetAudience: null } }],
          { expectedVersion: 0, metadata, now: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, start + i)) },
        ),
      ),
    )
  }
}

await seedLog(infra, 2500)
const clean = await snapshot(await cleanPass(infra, 'clean_pass'))
const sessionsLast = (await infra.jsm.streams.info('MATS_SESSIONS')).state.last_seq

t.test('the clean pass has every read model filled', async (t) => {
  t.equal(clean.accounts?.length, 3)
  t.equal(clean.api_keys?.length, 6)
  t.equal(clean.api_keys?.filter((k) => (k as { revokedAt: string | null }).revokedAt !== null).length, 3)
  t.equal(clean.sessions?.length, 2500)
})

t.test('the live read models (inline + projector) equal one clean pass', async (t) => {
  await until('the live projector to catch up', async () => (await infra.readModels.checkpoint(sessionsProjection, infra.readModels.generationOf(sessionsProjection))) >= sessionsLast, 30_000)
  t.same(await snapshot(infra.readModels), clean)
})

t.test('replaying the whole log twice, and a prefix again, changes nothing', async (t) => {
  const readModels = await readModelsIn(infra, 'replayed')
  await catchUp(infra, readModels)
  await catchUp(infra, readModels)
  for (const projection of readModels.projections) {
    // Rewind the checkpoint (a checkpoint that was lost, or a replay from scratch).
    await readModels.db.collection('projection_checkpoints').deleteMany({ _id: { $regex: `^${projection.name}@1(#|$)` } as never })
    t.equal(await readModels.checkpoint(projection, 1), 0, `${projection.name}: rewound`)
  }
  await catchUp(infra, readModels, 97)
  t.same(await snapshot(readModels), clean)
})

t.test('a crash after a batch was written but before its checkpoint moved is harmless', async (t) => {
  const readModels = await readModelsIn(infra, 'crashed_in_process')
  const collection = readModels.collection(sessionsProjection)
  const batch = []
  for (let seq = 1; seq <= 700; seq++) {
    const msg = await infra.jsm.streams.getMessage('MATS_SESSIONS', { seq })
    if (msg) batch.push(decodeEvent(msg))
  }
  // The first 400 documents of a 700-event batch were written, then the process died.
  await new BatchApplier(collection, sessionsProjection).apply(batch.slice(0, 400))
  t.equal(await readModels.checkpoint(sessionsProjection, 1), 0, 'the checkpoint did not move')
  await catchUp(infra, readModels)
  t.same(await snapshot(readModels), clean)
})

t.test('a projector process killed with SIGKILL mid-backlog, then restarted, converges', async (t) => {
  const database = 'killed_projector'
  const env = { NATS_URL: servers.natsUrl, MONGODB_URL: otherDatabase(servers, database) }
  const readModels = await readModelsIn(infra, database)
  const progress = () => readModels.checkpoint(sessionsProjection, 1)
  const first = spawnMats(t, ['start', '--role', 'projector'], env)
  const at = await until(
    'the projector to be part-way through the backlog',
    async () => {
      const seq = await progress()
      return seq > 0 && seq < sessionsLast ? seq : undefined
    },
    60_000,
    5,
  )
  first.kill('SIGKILL')
  await exited(first)
  const docsAtKill = await readModels.collection(sessionsProjection).countDocuments()
  t.ok(at < sessionsLast, `killed at checkpoint ${at} of ${sessionsLast} (${docsAtKill} session documents written)`)

  const second = spawnMats(t, ['start', '--role', 'projector'], env)
  await until('the restarted projector to catch up', async () => (await progress()) >= sessionsLast, 60_000)
  await until('the other projections to catch up', async () => {
    const snap = await snapshot(readModels)
    return snap.accounts?.length === 3 && snap.api_keys?.length === 6 ? true : undefined
  })
  second.kill('SIGTERM')
  t.equal(await exited(second), 0, 'SIGTERM stops the projector cleanly')
  t.same(await snapshot(readModels), clean)
})

t.test('mats projections rebuild: same read models, reads served throughout', async (t) => {
  const caller = await aCaller(infra, service.url)
  const { api } = caller
  for (let i = 0; i < 5; i++) await api.post('/v1/sessions', { name: `during ${i}` })
  const expectedTotal = 5
  const cleanNow = await snapshot(await cleanPass(infra, 'clean_before_rebuild'))
  const before = infra.readModels.generationOf(sessionsProjection)

  let reads = 0
  const failures: string[] = []
  let rebuilding = true
  const reader = (async () => {
    while (rebuilding) {
      const res = await api.get<{ pagination: { total: number } }>('/v1/sessions')
      reads++
      if (res.status !== 200 || res.body.pagination.total !== expectedTotal) failures.push(`${res.status} total=${res.body.pagination?.total}`)
    }
  })()
  const rebuild = spawnMats(t, ['projections', 'rebuild', '--json'], { NATS_URL: servers.natsUrl, MONGODB_URL: servers.mongoUrl })
  const output = collectOutput(rebuild)
  const code = await exited(rebuild)
  rebuilding = false
  await reader

  t.equal(code, 0, `rebuild exits 0: ${output.text()}`)
  const phases = output
    .text()
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { projection: string; phase: string })
  t.same(
    phases
      .filter((p) => p.phase === 'activated')
      .map((p) => p.projection)
      .sort(),
    ALL_PROJECTIONS.map((p) => p.name).sort(),
    'progress names each read model',
  )
  t.ok(reads > 0, `${reads} reads were served during the rebuild`)
  t.same(failures, [], 'every read during the rebuild saw all sessions')
  t.ok(infra.readModels.generationOf(sessionsProjection) > before, 'readers moved to the new generation')
  t.same(await snapshot(infra.readModels), cleanNow)

  const after = await api.post<{ session: { id: string } }>('/v1/sessions', { name: 'after the rebuild' })
  const listed = await api.get<{ sessions: { id: string }[] }>('/v1/sessions?limit=1')
  t.equal(listed.body.sessions[0]?.id, after.body.session.id, 'writes after the rebuild are read at once')

  // Straight to the log, with no inline projection: only the live projector can show it.
  const direct = randomUUID()
  await infra.events.append(
    Session,
    { accountId: caller.account.id, aggregateId: direct },
    [{ type: 'SessionCreated', data: { name: 'projector only', companyName: null, companyUrl: null, industry: null, targetAudience: null } }],
    { expectedVersion: 0, metadata: { correlationId: direct, causationId: null, keyId: null }, now: new Date() },
  )
  await until(
    'the live projector to apply an event in the new generation',
    async () => {
      const res = await api.get<{ sessions: { id: string }[] }>('/v1/sessions?limit=100')
      return res.body.sessions.some((s) => s.id === direct)
    },
    5000,
  )
  const collections = (await infra.db.listCollections().toArray()).map((c) => c.name)
  t.notOk(collections.includes(`sessions_g${before}`), `the old generation stays dropped (${collections.filter((c) => c.startsWith('sessions_')).join(', ')})`)
})

// Last: it appends to the log that the tests above compare with their clean pass.
t.test('a batch that changes 500 existing documents is written in chunks the store takes (FerretDB hangs on one bulk of 100 updates)', async (t) => {
  const readModels = await readModelsIn(infra, 'five_hundred_updates')
  const applier = new BatchApplier(readModels.collection(sessionsProjection), sessionsProjection)
  const accountId = randomUUID()
  const ids = Array.from({ length: 500 }, () => randomUUID())
  const metadata = { correlationId: randomUUID(), causationId: null, keyId: null }
  const append = (id: string, draft: SessionEvent, expectedVersion: number) => infra.events.append(Session, { accountId, aggregateId: id }, [draft], { expectedVersion, metadata, now: new Date() })
  const created = (
    await Promise.all(ids.map((id, i) => append(id, { type: 'SessionCreated', data: { name: `session ${i}`, companyName: null, companyUrl: null, industry: null, targetAudience: null } }, 0)))
  ).flat()
  await applier.apply(created)
  const changed = (
    await Promise.all(created.map((event) => append(event.aggregateId, { type: 'SessionAutonomyChanged', data: { autonomy: 'autonomous', previous: 'approval-required' } }, event.seq)))
  ).flat()
  t.equal(changed.length, 500)
  const started = Date.now()
  await new BatchApplier(readModels.collection(sessionsProjection), sessionsProjection).apply(changed)
  t.comment(`500 replacements applied in ${Date.now() - started} ms`)
  const docs = await readModels.collection<{ _id: string; autonomy: string }>(sessionsProjection).find({}).toArray()
  t.equal(docs.length, 500)
  t.ok(
    docs.every((doc) => doc.autonomy === 'autonomous'),
    'every document has the change',
  )
})

t.test('processes starting together on an empty database all initialize its read models (no duplicate-key failure)', async (t) => {
  const database = 'started_together'
  const starts = await Promise.allSettled(Array.from({ length: 6 }, () => readModelsIn(infra, database)))
  t.same(
    starts.filter((s) => s.status === 'rejected').map((s) => String((s as PromiseRejectedResult).reason)),
    [],
    'no start failed',
  )
  const generations = await infra.mongo.db(database).collection('projection_generations').find({}).toArray()
  t.equal(generations.length, ALL_PROJECTIONS.length, 'one generation pointer per read model')
})

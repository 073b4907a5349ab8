import { randomUUID } from 'node:crypto'
import { headers, type MsgHdrs } from '@nats-io/transport-node'
import t from 'tap'
import { isBatchRefusedWhole, publishAtomically, SERVER_BATCHES_PER_STREAM } from '../../src/infra/nats/atomic-batch.js'
import { isDuplicateInBatch, isWrongLastSequence } from '../../src/infra/nats/conflicts.js'
import { startServers } from '../helpers/servers.js'
import { connectTestInfra } from '../helpers/service.js'

/** What ADR 0026 relies on nats-server's atomic batches for, on a stream of its own. */
const servers = await startServers(t)
const infra = await connectTestInfra(t, servers)
await infra.jsm.streams.add({ name: 'PROBE', subjects: ['probe.>'], allow_atomic: true, duplicate_window: 120_000_000_000 })
await infra.jsm.streams.add({ name: 'PLAIN', subjects: ['plain.>'] })
await infra.jsm.streams.add({ name: 'CROWDED', subjects: ['crowded.>'], allow_atomic: true })

const withHeaders = (entries: Record<string, string>): MsgHdrs => {
  const h = headers()
  for (const [key, value] of Object.entries(entries)) h.set(key, value)
  return h
}
/** Three messages on one aggregate's subjects, the guard on the first; fresh headers each call. */
const batchOf = (aggregate: string, ids: readonly string[], expected: number) =>
  ids.map((id, i) => ({
    subject: `probe.${aggregate}.E${i}`,
    payload: `message ${i}`,
    headers: withHeaders({ 'Nats-Msg-Id': id, ...(i === 0 ? { 'Nats-Expected-Last-Subject-Sequence': String(expected), 'Nats-Expected-Last-Subject-Sequence-Subject': `probe.${aggregate}.*` } : {}) }),
  }))
const stored = async (aggregate: string) => (await infra.jsm.streams.info('PROBE', { subjects_filter: `probe.${aggregate}.*` })).state.subjects ?? {}

t.test('a batch is stored at consecutive sequences, acknowledged by its last', async (t) => {
  const aggregate = randomUUID()
  const ack = await publishAtomically(infra.nc, batchOf(aggregate, [randomUUID(), randomUUID(), randomUUID()], 0), 5000)
  t.equal(ack.count, 3)
  const seqs = await Promise.all([0, 1, 2].map(async (i) => (await infra.jsm.streams.getMessage('PROBE', { last_by_subj: `probe.${aggregate}.E${i}` }))?.seq))
  t.same(seqs, [ack.seq - 2, ack.seq - 1, ack.seq])
})

t.test('a guard that does not hold fails the batch with wrong last sequence, and nothing of it is stored', async (t) => {
  const aggregate = randomUUID()
  await publishAtomically(infra.nc, batchOf(aggregate, [randomUUID(), randomUUID()], 0), 5000)
  const err = await publishAtomically(infra.nc, batchOf(aggregate, [randomUUID(), randomUUID(), randomUUID()], 0), 5000).catch((e: unknown) => e)
  t.ok(isWrongLastSequence(err), String(err))
  t.equal(Object.keys(await stored(aggregate)).length, 2, 'only the first batch')
})

t.test('a batch sent again is refused whole as holding a duplicate message id', async (t) => {
  const aggregate = randomUUID()
  const ids = [randomUUID(), randomUUID()]
  const first = await publishAtomically(infra.nc, batchOf(aggregate, ids, 0), 5000)
  // The guard holds this time (the aggregate's last sequence): only the ids repeat.
  const err = await publishAtomically(infra.nc, batchOf(aggregate, ids, first.seq), 5000).catch((e: unknown) => e)
  t.ok(isDuplicateInBatch(err), String(err))
  t.equal(Object.keys(await stored(aggregate)).length, 2)
})

t.test('a stream that does not allow atomic batches refuses the first message', async (t) => {
  const messages = [0, 1].map((i) => ({ subject: `plain.${i}`, payload: 'x', headers: headers() }))
  await t.rejects(publishAtomically(infra.nc, messages, 5000), { code: 10174 })
  t.equal((await infra.jsm.streams.info('PLAIN')).state.messages, 0)
})

t.test('a guard on a later message of the batch is checked too: a batch over two aggregates is refused whole when the second one moved', async (t) => {
  const [first, second] = [randomUUID(), randomUUID()]
  const twoAggregates = (expectedSecond: number) => [...batchOf(first, [randomUUID()], 0), ...batchOf(second, [randomUUID(), randomUUID()], expectedSecond)]
  await publishAtomically(infra.nc, batchOf(second, [randomUUID()], 0), 5000)
  const err = await publishAtomically(infra.nc, twoAggregates(0), 5000).catch((e: unknown) => e)
  t.ok(isWrongLastSequence(err), String(err))
  t.same([Object.keys(await stored(first)).length, Object.keys(await stored(second)).length], [0, 1], 'nothing of the batch')

  const secondAt = (await infra.jsm.streams.getMessage('PROBE', { last_by_subj: `probe.${second}.E0` }))?.seq ?? -1
  const ack = await publishAtomically(infra.nc, twoAggregates(secondAt), 5000)
  t.equal(ack.count, 3, 'with both guards holding, the whole batch is stored')
})

t.test(`nats-server holds ${SERVER_BATCHES_PER_STREAM} open batches per stream and refuses the first message of the next, the whole batch with it`, async (t) => {
  // Given: as many batches opened (first message sent, no commit) as the server holds; they are abandoned after 10 s
  const opened = await Promise.all(Array.from({ length: SERVER_BATCHES_PER_STREAM }, () => openBatch()))
  t.same(
    opened.filter((reply) => reply !== ''),
    [],
    'every one is accepted',
  )
  // When
  const refused = await openBatch()
  // Then
  t.match(JSON.parse(refused), { error: refusalOf(infra.nc.info?.version ?? '') }, `as nats-server ${infra.nc.info?.version} refuses a batch it has no room for`)
  const err = await publishAtomically(
    infra.nc,
    [0, 1].map((i) => ({ subject: `crowded.${i}`, payload: 'x', headers: headers() })),
    5000,
  ).catch((e: unknown) => e)
  t.ok(isBatchRefusedWhole(err), `a whole batch is refused the same way: ${String(err)}`)
  t.equal((await infra.jsm.streams.info('CROWDED')).state.messages, 0, 'nothing is stored')
})

/** nats-server's answer to a batch past its open batches: 2.12 says it is incomplete, 2.14+ say there are too many in flight (ADR 0070). */
function refusalOf(version: string): { code: number; err_code: number; description: string } {
  const [major = 0, minor = 0] = version.split('.').map(Number)
  return major > 2 || (major === 2 && minor >= 14)
    ? { code: 429, err_code: 10210, description: 'atomic publish too many inflight' }
    : { code: 400, err_code: 10176, description: 'atomic publish batch is incomplete' }
}

/** Sends only the first message of a new batch on CROWDED; the server's answer ('' when it opened it). */
async function openBatch(): Promise<string> {
  const reply = await infra.nc.request('crowded.x', 'x', { headers: withHeaders({ 'Nats-Batch-Id': randomUUID(), 'Nats-Batch-Sequence': '1' }), timeout: 5000 })
  return reply.string()
}

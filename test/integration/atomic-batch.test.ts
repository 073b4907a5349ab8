import { randomUUID } from 'node:crypto'
import { headers, type MsgHdrs } from '@nats-io/transport-node'
import t from 'tap'
import { publishAtomically } from '../../src/infra/nats/atomic-batch.js'
import { isDuplicateInBatch, isWrongLastSequence } from '../../src/infra/nats/conflicts.js'
import { startServers } from '../helpers/servers.js'
import { connectTestInfra } from '../helpers/service.js'

/** What ADR 0026 relies on nats-server's atomic batches for, on a stream of its own. */
const servers = await startServers(t)
const infra = await connectTestInfra(t, servers)
await infra.jsm.streams.add({ name: 'PROBE', subjects: ['probe.>'], allow_atomic: true, duplicate_window: 120_000_000_000 })
await infra.jsm.streams.add({ name: 'PLAIN', subjects: ['plain.>'] })

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

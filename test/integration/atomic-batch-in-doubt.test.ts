import { randomUUID } from 'node:crypto'
import { headers, type MsgHdrs } from '@nats-io/transport-node'
import t from 'tap'
import { publishAtomically } from '../../src/infra/nats/atomic-batch.js'
import { AppendInDoubtError } from '../../src/infra/nats/event-store.js'
import { heldBack } from '../helpers/decisions.js'
import { startServers } from '../helpers/servers.js'
import { connectTestInfra } from '../helpers/service.js'
import { startTcpProxy } from '../helpers/tcp-proxy.js'

/**
 * An atomic batch whose commit is not answered by its deadline may still be stored (ADR 0046):
 * publishAtomically says so (AppendInDoubtError) and, later, what became of it. NATS "pauses"
 * here: the publisher reaches it through a proxy that holds back what it sends from a marker on.
 */
const servers = await startServers(t)
const proxy = await startTcpProxy(t, servers.nats.port)
const direct = await connectTestInfra(t, servers)
const viaProxy = await connectTestInfra(t, { ...servers, natsUrl: `nats://127.0.0.1:${proxy.port}` })
await direct.jsm.streams.add({ name: 'DOUBT', subjects: ['doubt.>'], allow_atomic: true })

const DEADLINE_MS = 800

const withHeaders = (entries: Record<string, string>): MsgHdrs => {
  const h = headers()
  for (const [key, value] of Object.entries(entries)) h.set(key, value)
  return h
}
/** Two messages on one aggregate's subjects, guarded as new; the payloads name the aggregate and which one commits. */
const batchOf = (aggregate: string) =>
  ['first', 'commit'].map((role, i) => ({
    subject: `doubt.${aggregate}.E${i}`,
    payload: `${role} of ${aggregate}`,
    headers: withHeaders({ 'Nats-Msg-Id': randomUUID(), ...(i === 0 ? { 'Nats-Expected-Last-Subject-Sequence': '0', 'Nats-Expected-Last-Subject-Sequence-Subject': `doubt.${aggregate}.*` } : {}) }),
  }))
const storedCount = async (aggregate: string) => Object.keys((await direct.jsm.streams.info('DOUBT', { subjects_filter: `doubt.${aggregate}.*` })).state.subjects ?? {}).length

/** Publishes the batch through the proxy, holding back what follows `marker` until the publish has failed. */
async function failedWhileHeld(aggregate: string, marker: string): Promise<unknown> {
  const held = proxy.holdFrom(marker)
  const publishing = publishAtomically(viaProxy.nc, batchOf(aggregate), DEADLINE_MS)
  await heldBack(held, publishing)
  return publishing.then(
    () => Promise.reject(new Error('the batch was acknowledged although its message was held back')),
    (err: unknown) => err,
  )
}

t.test('given a commit held back past the deadline, when it reaches the server afterwards, then the batch was in doubt and is settled as stored', async (t) => {
  const aggregate = randomUUID()

  const err = await failedWhileHeld(aggregate, `commit of ${aggregate}`)
  t.ok(err instanceof AppendInDoubtError, `in doubt, not a plain failure (${String(err)})`)
  t.equal(await storedCount(aggregate), 0, 'nothing stored while the commit is held')
  proxy.release()

  t.equal(await (err as AppendInDoubtError).settled, 'stored', 'the late PubAck says stored')
  t.equal(await storedCount(aggregate), 2, 'the whole batch is stored')
})

t.test('given a commit held back past the deadline, when another writer moves the aggregate before it arrives, then it is settled as not stored and nothing of it is', async (t) => {
  const aggregate = randomUUID()

  const err = await failedWhileHeld(aggregate, `commit of ${aggregate}`)
  t.ok(err instanceof AppendInDoubtError, String(err))
  await direct.js.publish(`doubt.${aggregate}.other`, 'another writer')
  proxy.release()

  t.equal(await (err as AppendInDoubtError).settled, 'not-stored', 'the guard refused the batch whole')
  t.equal(await storedCount(aggregate), 1, "only the other writer's message")
})

t.test('given the first message held back past the deadline, when the publish fails, then it is not in doubt: the commit was never sent', async (t) => {
  const aggregate = randomUUID()

  const err = await failedWhileHeld(aggregate, `first of ${aggregate}`)
  proxy.release()

  t.ok(err instanceof Error, String(err))
  t.notOk(err instanceof AppendInDoubtError, 'a batch without its commit is never stored: the server abandons it')
})

import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { jetstream, jetstreamManager } from '@nats-io/jetstream'
import { connect, type Payload, type PublishOptions } from '@nats-io/transport-node'
import t from 'tap'
import { freePort, startNats } from '../../src/infra/local/servers.js'
import { directBatch } from '../../src/infra/nats/direct-batch.js'
import { LogReader } from '../../src/infra/nats/log-reader.js'

/**
 * A direct batch asked for more messages than its filter has left makes nats-server look for
 * them through the rest of the stream: an aggregate early in a long log took 49 ms to read at
 * 300,000 messages. The reader asks for one, then for exactly what `Nats-Num-Pending` says is left.
 */

const dir = await mkdtemp(join(tmpdir(), 'mats-log-reader-'))
// Its monitoring port tells what the server holds for the reader's connection (GET /connz).
const monitor = `127.0.0.1:${await freePort()}`
const nats = await startNats({ dataDir: join(dir, 'nats'), config: `http: "${monitor}"` })
const nc = await connect({ servers: nats.url })
t.teardown(async () => {
  await nc.close()
  await nats.stop()
  await rm(dir, { recursive: true, force: true })
})
const jsm = await jetstreamManager(nc)
const js = jetstream(nc)
await jsm.streams.add({ name: 'LOG', subjects: ['log.>'], allow_direct: true })

/** The batch sizes the reader asks the server for, as its direct gets go out on the real connection. */
const asked: number[] = []
const publish = nc.publish.bind(nc)
nc.publish = (subject: string, payload?: Payload, options?: PublishOptions) => {
  if (subject.startsWith('$JS.API.DIRECT.GET.') && typeof payload === 'string') asked.push((JSON.parse(payload) as { batch?: number }).batch ?? Number.NaN)
  publish(subject, payload, options)
}
const reader = new LogReader({ nc, jsm })

async function append(subject: string, count: number): Promise<number> {
  let seq = 0
  for (let i = 0; i < count; i++) seq = (await js.publish(subject, JSON.stringify({ i }))).seq
  return seq
}

const early = await append('log.early.created', 1)
await append('log.early.started', 1)
const earlyLast = await append('log.early.completed', 1)
await Promise.all(Array.from({ length: 20 }, (_, n) => append(`log.filler${n}.x`, 100)))
let longLast = 0
for (let round = 0; round < 6; round++) {
  longLast = await append('log.long.step', 100)
  await append('log.filler.between', 10)
}

t.test('given an aggregate of three messages at the start of a long stream, when it is read, then it asks for one and then for the two left', async (t) => {
  asked.length = 0
  const read = await reader.read('LOG', 'log.early.*', 1)
  t.equal(read.lastSeq, earlyLast, 'read up to its last message')
  t.ok(early < earlyLast, 'the aggregate is at the start of the stream')
  t.same(asked, [1, 2], 'never asked for more than its filter holds')
})

t.test('given 600 messages on one filter among others, when read, then all of them, in batches of at most 256 that never overshoot', async (t) => {
  asked.length = 0
  const read = await reader.read('LOG', 'log.long.*', 1)
  t.equal(read.lastSeq, longLast, 'read up to the last of the 600')
  t.same(asked, [1, 256, 256, 87], 'one, then what is left, at most 256 at a time')
})

t.test('given nothing on a filter, when read, then nothing, in one request', async (t) => {
  asked.length = 0
  const read = await reader.read('LOG', 'log.absent.*', 1)
  t.equal(read.lastSeq, 0)
  t.same(read.events, [])
  t.same(asked, [1])
})

/** What nats-server holds for and has sent the reader's connection (GET /connz), once what the client sent has reached it. */
async function onServer(): Promise<{ subscriptions: number; messagesSent: number }> {
  await nc.flush()
  const res = await fetch(`http://${monitor}/connz`)
  const { connections } = (await res.json()) as { connections: { subscriptions: number; out_msgs: number }[] }
  return { subscriptions: connections.reduce((sum, c) => sum + c.subscriptions, 0), messagesSent: connections.reduce((sum, c) => sum + c.out_msgs, 0) }
}

t.test('given 20 rounds of reads (a short aggregate, 600 messages, an empty filter), when they are over, then they left no subscription on the server', async (t) => {
  // Given
  const before = (await onServer()).subscriptions

  // When
  for (let round = 0; round < 20; round++) {
    await Promise.all([reader.read('LOG', 'log.early.*', 1), reader.read('LOG', 'log.long.*', 1), reader.read('LOG', 'log.absent.*', 1)])
  }

  // Then: each direct batch has a reply inbox of its own; nats.js's iterator form left it subscribed until its 5 s timeout.
  t.equal((await onServer()).subscriptions, before, `as many subscriptions as before the reads (${before})`)
})

t.test('given an aggregate of three messages, when it is read, then the server sends the client those three and no end-of-batch status', async (t) => {
  // Given
  const before = (await onServer()).messagesSent

  // When
  const read = await reader.read('LOG', 'log.early.*', 1)

  // Then: two requests (one message, then the two left); a reply inbox subscribed for exactly as many drops the server's end-of-batch status after each.
  t.equal(read.events.length + read.undecodable.length, 3, 'the three messages are read')
  t.equal((await onServer()).messagesSent - before, 3, 'three messages to the client, not five (each batch with its 204)')
})

t.test('given a filter with fewer messages than asked for, when a batch is read, then it ends on the status the server sends after them', async (t) => {
  const batch = await directBatch({ nc, jsm }, 'LOG', { seq: 1, next_by_subj: 'log.early.*', batch: 10 })
  t.same(
    batch.map((msg) => msg.subject),
    ['log.early.created', 'log.early.started', 'log.early.completed'],
  )
  t.same(await directBatch({ nc, jsm }, 'LOG', { seq: 1, next_by_subj: 'log.absent.*', batch: 10 }), [], 'none: the 404 ends it')
})

t.test('given a direct batch nobody answers, when its deadline passes, then it fails and leaves no subscription', async (t) => {
  // Given: something listens on the stream's direct get subject and never answers (a request reaches it, not the server's no-responders)
  const silent = nc.subscribe('$JS.API.DIRECT.GET.SILENT', { callback: () => undefined })
  t.teardown(() => silent.unsubscribe())
  const before = (await onServer()).subscriptions

  // When
  const failure = await directBatch({ nc, jsm }, 'SILENT', { seq: 1, next_by_subj: 'x.>', batch: 3 }).then(
    () => null,
    (err: unknown) => err,
  )

  // Then
  t.type(failure, Error, `the read fails (${String(failure)})`)
  t.equal((await onServer()).subscriptions, before, 'its reply subscription is gone, on the server too')
})

import { mkdtemp, rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { NatsConnectionImpl, errors } from '@nats-io/nats-core/internal'
import { jetstream, jetstreamManager } from '@nats-io/jetstream'
import { connect } from '@nats-io/transport-node'
import t, { type Test } from 'tap'
import { startNats } from '../../src/infra/local/servers.js'
import { letResolvedRequestsGo } from '../../src/infra/nats/resolved-requests.js'

/**
 * A request nats.js resolves makes no error (resolved-requests.ts), over a real nats-server:
 * answered requests and JetStream appends, counted on nats.js' own error class, with the
 * connection's request map left empty; and a request that fails or times out is still refused.
 */

const dir = await mkdtemp(join(tmpdir(), 'mats-resolved-requests-'))
const nats = await startNats({ dataDir: join(dir, 'nats') })
t.teardown(async () => {
  await nats.stop()
  await rm(dir, { recursive: true, force: true })
})

const nc = await connect({ servers: nats.url, noAsyncTraces: true })
t.teardown(() => nc.close())
if (!(nc instanceof NatsConnectionImpl)) throw new Error("nats.js' connection class moved: this test must learn the new shape")
t.ok(letResolvedRequestsGo(nc), 'installed on the connection class nats.js uses')
const connection = nc
/** Requests the connection still holds, waiting for an answer. */
const pendingRequests = () => connection.protocol.muxSubscriptions.size()

/** Counts every RequestError nats.js makes, by the module object its code reads the class from at each use. */
function countRequestErrors(t: Test): { made: number } {
  const errorsModule: { RequestError: typeof errors.RequestError; errors: typeof errors } = createRequire(import.meta.url)(
    join(dirname(createRequire(import.meta.url).resolve('@nats-io/nats-core')), 'errors.js'),
  )
  const original = errorsModule.RequestError
  const count = { made: 0 }
  class Counted extends original {
    constructor(...args: ConstructorParameters<typeof original>) {
      super(...args)
      count.made++
    }
  }
  errorsModule.RequestError = Counted
  errorsModule.errors.RequestError = Counted
  t.teardown(() => {
    errorsModule.RequestError = original
    errorsModule.errors.RequestError = original
  })
  return count
}

t.test('given a responder, when requests are answered, then no error is made and none is left pending', async (t) => {
  const responder = nc.subscribe('echo', { callback: (_err, msg) => void msg.respond(msg.data) })
  t.teardown(() => responder.unsubscribe())
  const errorsMade = countRequestErrors(t)

  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => nc.request('echo', `ping ${i}`, { timeout: 10_000 })))

  t.same(
    answers.map((answer) => answer.string()),
    answers.map((_, i) => `ping ${i}`),
  )
  t.equal(errorsMade.made, 0, 'no RequestError made')
  t.equal(pendingRequests(), 0, 'every request let go')
})

t.test('given a stream, when events are appended, then no error is made', async (t) => {
  const jsm = await jetstreamManager(nc)
  await jsm.streams.add({ name: 'RESOLVED', subjects: ['resolved.>'] })
  const js = jetstream(nc)
  const errorsMade = countRequestErrors(t)

  for (let i = 0; i < 10; i++) await js.publish(`resolved.${i}`, `event ${i}`, { msgID: `event-${i}` })

  t.equal((await jsm.streams.info('RESOLVED')).state.messages, 10)
  t.equal(errorsMade.made, 0, 'no RequestError made')
  t.equal(pendingRequests(), 0, 'every append let go')
})

t.test('given no responder, when a request is made, then it is refused as nats.js refuses it', async (t) => {
  const refused = await nc.request('nobody.here', 'hello', { timeout: 10_000 }).catch((err: unknown) => err)

  t.ok(refused instanceof errors.RequestError && refused.isNoResponders(), 'refused: no responders')
  t.equal(pendingRequests(), 0)
})

t.test('given a responder that never answers, when a request times out, then it is refused with a timeout', async (t) => {
  const silent = nc.subscribe('silent', { callback: () => {} })
  t.teardown(() => silent.unsubscribe())

  const refused = await nc.request('silent', 'hello', { timeout: 200 }).catch((err: unknown) => err)

  t.ok(refused instanceof errors.TimeoutError, 'refused: timed out')
  t.equal(pendingRequests(), 0)
})

t.test('given a request too large to publish, when it is made, then it is refused for its size and let go', async (t) => {
  const tooLarge = new Uint8Array((nc.info?.max_payload ?? 1024 * 1024) + 1)

  const refused = await nc.request('echo', tooLarge, { timeout: 10_000 }).catch((err: unknown) => err)

  t.ok(refused instanceof errors.InvalidArgumentError, `refused: ${String(refused)}`)
  t.match(String(refused), /max_payload/)
  t.equal(pendingRequests(), 0)
})

t.test('given a request waiting for its answer, when the connection closes, then it is refused and let go', async (t) => {
  const closing = await connect({ servers: nats.url, noAsyncTraces: true })
  t.teardown(() => closing.close())
  if (!(closing instanceof NatsConnectionImpl)) throw new Error("nats.js' connection class moved: this test must learn the new shape")
  closing.subscribe('silent.until.closed', { callback: () => {} })
  await closing.flush()

  const request = closing.request('silent.until.closed', 'hello', { timeout: 30_000 }).catch((err: unknown) => err)
  await closing.close()

  const refused = await request
  t.ok(refused instanceof errors.RequestError, `refused: ${String(refused)}`)
  t.match(String(refused), /connection closed/)
  t.equal(closing.protocol.muxSubscriptions.size(), 0)
})

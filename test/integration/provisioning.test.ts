import { JetStreamApiError, jetstreamManager } from '@nats-io/jetstream'
import { connect } from '@nats-io/transport-node'
import t, { type Test } from 'tap'
import { provisioned, ProvisioningRefusedError, ProvisioningTimeoutError } from '../../src/infra/nats/provisioning.js'
import { DISPATCH_STREAM, dispatchConsumer } from '../../src/infra/nats/dispatch-stream.js'
import { accountDispatchConsumer } from '../helpers/dispatch.js'
import { aCaller, aSessionBody } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'
import { startTcpProxy } from '../helpers/tcp-proxy.js'
import { until } from '../helpers/wait.js'

/** Far below NATS_TIMEOUT_MS's default: the held request times out at once. */
const REQUEST_TIMEOUT_MS = 300

const aStream = (name: string) => ({ name, subjects: [`${name.toLowerCase()}.>`] })

/** `request`, counting how many times it is asked. */
function counted<T>(request: () => Promise<T>) {
  const asked = { times: 0 }
  return {
    asked,
    request: () => {
      asked.times++
      return request()
    },
  }
}

/** A JetStream manager on a server of its own, connected directly. */
async function aManager(t: Test) {
  const servers = await startServers(t)
  const nc = await connect({ servers: servers.natsUrl })
  t.teardown(() => nc.close())
  return jetstreamManager(nc, { timeout: REQUEST_TIMEOUT_MS })
}

t.test('given a server that answers a stream creation only after the request timed out, when it is provisioned, then it is asked again and the stream exists', async (t) => {
  const servers = await startServers(t)
  const proxy = await startTcpProxy(t, Number(new URL(servers.natsUrl).port))
  const nc = await connect({ servers: `127.0.0.1:${proxy.port}` })
  t.teardown(() => nc.close())
  const jsm = await jetstreamManager(nc, { timeout: REQUEST_TIMEOUT_MS })
  const retries: number[] = []

  const held = proxy.holdFrom('$JS.API.STREAM.CREATE.SLOW')
  const creation = provisioned('create stream SLOW', () => jsm.streams.add(aStream('SLOW')), { onRetry: (_, attempt) => retries.push(attempt) })
  await held
  await until('the held request to time out and be asked again', () => retries.length > 0)
  proxy.release()

  const info = await creation
  t.equal(info.config.name, 'SLOW', 'the creation answered once the server did')
  t.ok(retries.length >= 1, `asked again after a timeout (${retries.length} retries)`)
  t.equal((await jsm.streams.info('SLOW')).config.name, 'SLOW', 'the stream exists')
})

t.test('given a server that never answers, when something is provisioned, then it fails after the deadline with an error naming what', async (t) => {
  const servers = await startServers(t)
  const proxy = await startTcpProxy(t, Number(new URL(servers.natsUrl).port))
  const nc = await connect({ servers: `127.0.0.1:${proxy.port}` })
  t.teardown(() => nc.close())
  const jsm = await jetstreamManager(nc, { timeout: REQUEST_TIMEOUT_MS })

  void proxy.holdFrom('$JS.API.STREAM.CREATE.NEVER')
  const failure = await provisioned('create stream NEVER', () => jsm.streams.add(aStream('NEVER')), { deadlineMs: 1_500 }).catch((err: unknown) => err)

  t.type(failure, ProvisioningTimeoutError)
  t.match(String(failure), /NATS did not answer in time to create stream NEVER \(asked \d+ times over 1500 ms\)/)
  proxy.release()
})

t.test('given a provisioning request refused for another reason, then it fails at once without asking again', async (t) => {
  const jsm = await aManager(t)
  const { asked, request } = counted(() => jsm.streams.info('MISSING'))

  const failure = await provisioned('look up stream MISSING', request).catch((err: unknown) => err)

  t.match(String(failure), /stream not found/)
  t.equal(asked.times, 1, 'a refusal is not a timeout: asked once')
})

t.test('given a cluster still placing its peers, when a stream creation is refused for want of peers, then it is asked again until placed', async (t) => {
  const jsm = await aManager(t)
  // What a meta leader answers before every server has reported to it (the words of the stress loop's refusal were not logged: these are nats-server's for that state).
  const refusals = [
    { code: 400, err_code: 10005, description: 'no suitable peers for placement' },
    { code: 503, err_code: 10023, description: 'insufficient resources' },
  ]
  let attempts = 0

  const info = await provisioned('create stream PLACED', () => {
    const refusal = refusals[attempts++]
    return refusal ? Promise.reject(new JetStreamApiError(refusal)) : jsm.streams.add(aStream('PLACED'))
  })

  t.equal(info.config.name, 'PLACED')
  t.equal(attempts, 3, 'asked again after each refusal')
})

t.test("given a cluster that keeps refusing for want of peers, when the deadline passes, then the refusal is thrown naming what and in the server's words", async (t) => {
  const refusal = { code: 400, err_code: 10005, description: 'no suitable peers for placement' }
  const { asked, request } = counted(() => Promise.reject(new JetStreamApiError(refusal)))

  const failure = await provisioned('create stream NOWHERE', request, { deadlineMs: 300 }).catch((err: unknown) => err)

  t.type(failure, ProvisioningRefusedError)
  t.match(String(failure), /NATS refused to create stream NOWHERE: no suitable peers for placement \(asked \d+ times over 300 ms\)/)
  t.ok(asked.times > 1, `asked ${asked.times} times`)
})

t.test("given a replicated stream asked of a single server, then the refusal is thrown at once in the server's words", async (t) => {
  const jsm = await aManager(t)
  const { asked, request } = counted(() => jsm.streams.add({ ...aStream('R3'), num_replicas: 3 }))

  const failure = await provisioned('create stream R3', request).catch((err: unknown) => err)

  t.type(failure, JetStreamApiError)
  t.match(String(failure), /replicas > 1 not supported in non-clustered mode/)
  t.equal(asked.times, 1, 'a server that is not a cluster will not become one: asked once')
})

t.test("given a running worker, when an account's dispatch consumer is deleted by hand, then it makes it again and goes on claiming the account's tasks", async (t) => {
  const servers = await startServers(t)
  const service = await startTestService(t, servers)
  const caller = await aCaller(service.infra, service.url)
  const session = await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())
  const completes = async (instruction: string) => {
    const posted = await caller.api.post<{ task: { id: string } }>('/v1/tasks', { sessionId: session.body.session.id, instruction })
    t.equal(posted.status, 201)
    const ended = async () => {
      const res = await caller.api.get<{ task: { status: string } }>(`/v1/tasks/${posted.body.task.id}`)
      return res.body.task.status === 'completed' ? res.body.task : undefined
    }
    return until(`task "${instruction}" to complete`, ended, 60_000, 100)
  }
  await completes('Draft the welcome email')
  const consumer = await accountDispatchConsumer(service.infra, caller.account.id)
  t.ok(consumer, "the account's dispatch consumer exists once it had a task")

  await service.infra.jsm.consumers.delete(DISPATCH_STREAM, dispatchConsumer(caller.account.id))
  const ended = await completes('Draft three subject lines for the spring sale email')

  t.equal(ended.status, 'completed', 'the task posted after the deletion completed')
  const again = await accountDispatchConsumer(service.infra, caller.account.id)
  t.equal(again?.name, dispatchConsumer(caller.account.id), 'the consumer exists again')
  t.not(again?.created, consumer?.created, 'made anew')
})

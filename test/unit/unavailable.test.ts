import { once } from 'node:events'
import { createRequire } from 'node:module'
import { createServer, connect, type AddressInfo, type Socket } from 'node:net'
import { JetStreamApiError } from '@nats-io/jetstream'
import { jserrors } from '@nats-io/jetstream/internal'
import { errors as nats } from '@nats-io/transport-node'
import Fastify from 'fastify'
import { MongoClientClosedError, MongoInvalidArgumentError, MongoNetworkError, MongoNetworkTimeoutError, MongoServerClosedError, MongoClient, MongoServerError } from 'mongodb'
import t, { type Test } from 'tap'
import errors from '../../src/http/plugins/errors.js'
import { EventStoreUnavailableError } from '../../src/infra/nats/event-store-errors.js'
import { isDependencyUnavailable } from '../../src/infra/unavailable.js'

/**
 * Invariant 11: every error the MongoDB driver throws while its server is killed or coming
 * back is "out of reach" (503 with Retry-After), never a 500; a refusal or a bug stays one.
 */

/** The driver's pool errors, which its index does not export (lib/cmap/errors.js). */
interface PoolErrors {
  PoolClosedError: new (pool: { address: string }) => Error
  PoolClearedError: new (pool: { address: string; serverError?: Error }) => Error
  WaitQueueTimeoutError: new (message: string, address: string) => Error
}
const pool: PoolErrors = createRequire(import.meta.url)('mongodb/lib/cmap/errors.js')
const address = '127.0.0.1:27017'

/** A real socket's own error: `serverSide` does something to the accepted connection, `clientSide` to the client's. */
async function socketError(t: Test, serverSide: (socket: Socket) => void, clientSide: (socket: Socket) => void): Promise<Error> {
  const server = createServer(serverSide).listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => server.close())
  const client = connect((server.address() as AddressInfo).port, '127.0.0.1')
  const failed = once(client, 'error')
  // Read what comes, so that the server's end is seen ('end').
  client.resume()
  clientSide(client)
  const [err] = await failed
  client.destroy()
  return err
}

/**
 * What the driver's Connection.writeCommand throws as is: a command written to a connection
 * the server has ended, after Node ended this side too (a microtask after 'end') and before
 * the socket closed, as the driver's next command can be.
 */
const writeAfterServerEnded = (t: Test) =>
  socketError(
    t,
    (socket) => socket.end(),
    (client) => client.once('end', () => queueMicrotask(() => client.write('a command'))),
  )

/** A connection the server reset (killed mid-answer). */
const resetByServer = (t: Test) =>
  socketError(
    t,
    (socket) => socket.resetAndDestroy(),
    () => undefined,
  )

/** What a real client answers when nothing listens where its server was. */
async function noServerSelected(t: Test): Promise<Error> {
  const server = createServer().listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  const client = new MongoClient(`mongodb://127.0.0.1:${port}/mats`, { serverSelectionTimeoutMS: 200 })
  t.teardown(() => client.close())
  return client
    .db()
    .collection('api_keys')
    .findOne({})
    .then(
      () => new Error('a server answered'),
      (err: Error) => err,
    )
}

t.test('given each error the driver throws while MongoDB is killed or restarting, then each is classified out of reach', async (t) => {
  const outOfReach: [string, Error][] = [
    ['a connection closed', new MongoNetworkError(`connection 3 to ${address} closed`)],
    ['a connection timed out', new MongoNetworkTimeoutError(`connection 3 to ${address} timed out`)],
    ['no server selected', await noServerSelected(t)],
    ['the pool cleared', new pool.PoolClearedError({ address, serverError: new MongoNetworkError('read ECONNRESET') })],
    ['the pool closed', new pool.PoolClosedError({ address })],
    ['a checkout waited too long', new pool.WaitQueueTimeoutError('Timed out while checking out a connection from connection pool', address)],
    ['the server closed', new MongoServerClosedError()],
    ['the client closed', new MongoClientClosedError()],
    ['shutdown in progress (91)', new MongoServerError({ message: 'The server is in quiesce mode and will shut down', code: 91, codeName: 'ShutdownInProgress' })],
    ['interrupted at shutdown (11600)', new MongoServerError({ message: 'interrupted at shutdown', code: 11600, codeName: 'InterruptedAtShutdown' })],
    ['not writable primary (10107)', new MongoServerError({ message: 'not primary', code: 10107, codeName: 'NotWritablePrimary' })],
    ['a write labelled RetryableWriteError', new MongoServerError({ message: 'write failed', code: 1, errorLabels: ['RetryableWriteError'] })],
    ['a server shedding load', new MongoServerError({ message: 'overloaded', code: 462, errorLabels: ['SystemOverloadedError', 'RetryableError'] })],
    ['a write to a connection the server ended (EPIPE, thrown as is)', await writeAfterServerEnded(t)],
    ['a connection reset (ECONNRESET, thrown as is)', await resetByServer(t)],
  ]
  for (const [what, err] of outOfReach) t.ok(isDependencyUnavailable(err), `${what}: ${err.name} ${(err as { code?: unknown }).code ?? ''} "${err.message}"`)
})

t.test('given a refusal or a bug, then it is not classified out of reach', async (t) => {
  const broken = await writeAfterServerEnded(t)
  const notOutOfReach: [string, Error][] = [
    ['a duplicate key', new MongoServerError({ message: 'E11000 duplicate key error', code: 11000 })],
    ['a refused login, though labelled HandshakeError', new MongoServerError({ message: 'Authentication failed.', code: 18, errorLabels: ['HandshakeError'] })],
    ['a bad argument', new MongoInvalidArgumentError('Argument "filter" must be an object')],
    ['a bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['an outside service out of reach, wrapped as fetch wraps it', new TypeError('fetch failed', { cause: broken })],
  ]
  for (const [what, err] of notOutOfReach) t.notOk(isDependencyUnavailable(err), what)
})

t.test('given each error nats.js throws while NATS is out of reach, then each is classified out of reach; a refusal is not', async (t) => {
  const jetStream = (code: number, err_code: number, description: string) => new JetStreamApiError({ code, err_code, description })
  const outOfReach: [string, Error][] = [
    ['a request timed out', new nats.TimeoutError()],
    ['nobody listens', new nats.NoRespondersError('$JS.API.STREAM.INFO.MATS_TASKS')],
    ['a request failed for want of responders', new nats.RequestError('no responders', { cause: new nats.NoRespondersError('$JS.API.STREAM.INFO.MATS_TASKS') })],
    ['the connection failed', new nats.ConnectionError('connection refused')],
    ['the connection closed', new nats.ClosedConnectionError()],
    ['the connection is draining', new nats.DrainingConnectionError()],
    ['a stream without a leader', jetStream(503, 10008, 'JetStream system temporarily unavailable')],
    ['a publish to a stream with no leader yet', new jserrors.JetStreamNotEnabled('jetstream is not enabled', { cause: new nats.NoRespondersError('$KV.mats_worker_heartbeats.w1') })],
    ["the event store's own, wrapping a timeout", new EventStoreUnavailableError('could not append to mats.task', { cause: new nats.TimeoutError() })],
  ]
  for (const [what, err] of outOfReach) t.ok(isDependencyUnavailable(err), `${what}: ${err.name} "${err.message}"`)
  const refused: [string, Error][] = [
    ['a guard that moved', jetStream(400, 10071, 'wrong last sequence: 41')],
    ['a stream that does not exist', jetStream(404, 10059, 'stream not found')],
    ['a permission refused', new nats.PermissionViolationError('Permissions Violation for Publish to "mats.task"', 'publish', 'mats.task')],
  ]
  for (const [what, err] of refused) t.notOk(isDependencyUnavailable(err), what)
})

t.test('given a handler that meets the EPIPE the driver throws as is, when it is answered, then it is a 503 with Retry-After, not a 500', async (t) => {
  const broken = await writeAfterServerEnded(t)
  const app = Fastify()
  await app.register(errors)
  app.post('/v1/tasks', async () => {
    throw broken
  })
  t.teardown(() => app.close())

  const res = await app.inject({ method: 'POST', url: '/v1/tasks' })

  t.equal(res.statusCode, 503)
  t.ok(res.headers['retry-after'], 'with Retry-After')
  t.same(res.json(), { error: 'service temporarily unavailable, retry later', code: 'unavailable' })
})

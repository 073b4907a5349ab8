import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Collection, MongoClient, type MongoClientOptions } from 'mongodb'
import t, { type Test } from 'tap'
import { ALL_PROJECTIONS, apiKeysProjection, ReadModels, type ApiKeyDoc, type Stored } from '../../projections/index.js'
import { generateApiKey } from '../../src/domain/accounts/api-key-secret.js'
import { UnauthorizedError } from '../../src/domain/errors.js'
import { ApiKeyAuthenticator } from '../../src/http/authenticator.js'
import { startMongo, type LocalServer } from '../../src/infra/local/servers.js'
import { isDependencyUnavailable } from '../../src/infra/unavailable.js'
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js'
import { until } from '../helpers/wait.js'

/**
 * Invariant 11 on the key check: with MongoDB out of reach a POST needs only NATS, so a key
 * this process has read before must not hold the request for the driver's timeout; and the
 * last read must not outlive MongoDB's answer.
 */

const ACCOUNT = { accountId: 'acct-1', keyId: 'key-1' }
/** The driver waits this long for a server: the old key check held a request that long. */
const DRIVER_WAIT_MS = 30_000

interface Rig {
  mongo: LocalServer
  readonly dir: string
  readonly key: string
  /** The read models as the authenticator's own client sees them. */
  readonly readModels: ReadModels
  readonly client: MongoClient
  /** The api_keys collection through a client of the test's, straight to the server. */
  readonly keys: Collection<Stored<ApiKeyDoc>>
  /** In front of the server for the authenticator's client, when asked for. */
  readonly proxy: TcpProxy | null
}

/** FerretDB with one stored key; the authenticator's client reaches it directly, or through a proxy that can hold what it sends. */
async function rig(t: Test, { proxied = false } = {}): Promise<Rig> {
  const dir = await mkdtemp(join(tmpdir(), 'mats-auth-away-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const mongo = await startMongo({ dataDir: dir, database: 'auth' })
  const state = { mongo }
  t.teardown(() => state.mongo.stop())
  const direct = await new MongoClient(mongo.url).connect()
  t.teardown(() => direct.close())
  const proxy = proxied ? await startTcpProxy(t, mongo.port) : null
  const url = proxy ? `mongodb://127.0.0.1:${proxy.port}/auth` : mongo.url
  const options: MongoClientOptions = { serverSelectionTimeoutMS: DRIVER_WAIT_MS, connectTimeoutMS: DRIVER_WAIT_MS, monitorCommands: true }
  const client = await new MongoClient(url, options).connect()
  t.teardown(() => client.close())
  const readModels = new ReadModels(client.db('auth'), ALL_PROJECTIONS)
  await readModels.init()
  const { key, keyHash, keyPrefix } = generateApiKey()
  const keys = new ReadModels(direct.db('auth'), ALL_PROJECTIONS).collection<ApiKeyDoc>(apiKeysProjection)
  const doc: Stored<ApiKeyDoc> = { _id: ACCOUNT.keyId, _seq: 1, accountId: ACCOUNT.accountId, name: 'ci', keyHash, keyPrefix, createdAt: new Date().toISOString(), expiresAt: null, revokedAt: null }
  await keys.insertOne(doc)
  return {
    get mongo() {
      return state.mongo
    },
    set mongo(server) {
      state.mongo = server
    },
    dir,
    key,
    readModels,
    client,
    keys,
    proxy,
  }
}

const authenticatorOf = (readModels: ReadModels, ttlMs: number, readGivenUpMs = DRIVER_WAIT_MS * 2) => new ApiKeyAuthenticator(readModels, { ttlMs, readGivenUpMs }, () => new Date())

/** How long a check took, and what it answered. */
async function timedCheck(authenticator: ApiKeyAuthenticator, key: string): Promise<{ ms: number; answer: unknown }> {
  const startedAt = Date.now()
  const answer = await authenticator.authenticateKey(key).catch((err: unknown) => err)
  return { ms: Date.now() - startedAt, answer }
}

/**
 * Reads of the api_keys collection the client sent and got answered. A read waiting for a
 * connection (a held one is busy, a new one's handshake is held too) is sent only once the
 * proxy releases: counts are compared after that.
 */
function keyReadsOf(client: MongoClient): { sent: () => number; answered: () => number } {
  const isKeyRead = (commandName: string, collection: unknown) => commandName === 'find' && String(collection).startsWith(apiKeysProjection.name)
  const keyReads = new Set<number>()
  let sent = 0
  let answered = 0
  client.on('commandStarted', (event) => {
    if (!isKeyRead(event.commandName, event.command.find)) return
    keyReads.add(event.requestId)
    sent++
  })
  client.on('commandSucceeded', (event) => {
    if (keyReads.delete(event.requestId)) answered++
  })
  return { sent: () => sent, answered: () => answered }
}

t.test(
  'given a key read before and MongoDB killed, when the key is checked, then it is answered from the last read long before the driver gives up, and its revocation is seen once MongoDB is back',
  async (t) => {
    const r = await rig(t)
    // A TTL of 0: every check reads the key again.
    const authenticator = authenticatorOf(r.readModels, 0)
    t.same(await authenticator.authenticateKey(r.key), ACCOUNT, 'the key is read while MongoDB is up')

    // Given
    const { port } = r.mongo
    r.mongo.process.kill('SIGKILL')
    await new Promise((resolve) => r.mongo.process.once('exit', resolve))

    // When
    const check = await timedCheck(authenticator, r.key)

    // Then
    t.same(check.answer, ACCOUNT, 'the key is accepted as last read')
    t.ok(check.ms < DRIVER_WAIT_MS / 3, `answered in ${check.ms} ms, not after the driver's ${DRIVER_WAIT_MS} ms`)

    r.mongo = await startMongo({ dataDir: r.dir, database: 'auth', port })
    await r.keys.updateOne({ _id: ACCOUNT.keyId }, { $set: { revokedAt: new Date().toISOString() } })
    const refused = await until(
      'the revocation to be seen',
      () =>
        authenticator.authenticateKey(r.key).then(
          () => false,
          (err: unknown) => err,
        ),
      60_000,
      100,
    )
    t.type(refused, UnauthorizedError)
    t.match(String(refused), /revoked/, 'refused as revoked once MongoDB answers again')
  },
)

t.test('given a refresh MongoDB answers late, when it answers a revocation, then the next check is refused from the cache, with no read of its own', async (t) => {
  const r = await rig(t, { proxied: true })
  const proxy = r.proxy
  if (!proxy) throw new Error('the rig was asked for a proxy')
  const ttlMs = 3000
  const authenticator = authenticatorOf(r.readModels, ttlMs)
  const readAt = Date.now()
  t.same(await authenticator.authenticateKey(r.key), ACCOUNT, 'the key is read while MongoDB answers')
  // The first check's lastUsedAt write done: what follows reads nothing else.
  await authenticator.keyInfo(ACCOUNT.keyId)
  const keyReads = keyReadsOf(r.client)

  // Given: MongoDB stops answering the authenticator, the key is revoked, and its cached read expires
  proxy.holdAll()
  await r.keys.updateOne({ _id: ACCOUNT.keyId }, { $set: { revokedAt: new Date().toISOString() } })
  await until('the cached read to expire', () => Date.now() > readAt + ttlMs + 50, ttlMs + 5000, 50)
  const meanwhile = await timedCheck(authenticator, r.key)
  t.same(meanwhile.answer, ACCOUNT, `while MongoDB does not answer, the key is answered as last read (${meanwhile.ms} ms)`)

  // When: MongoDB answers the refresh nobody waits for any more
  proxy.release()
  await until('the refresh to be answered', () => keyReads.answered() === 1, 30_000, 10)

  // Then
  const after = await timedCheck(authenticator, r.key)
  t.type(after.answer, UnauthorizedError)
  t.match(String(after.answer), /revoked/, 'the revocation the late refresh read is cached')
  t.equal(keyReads.sent(), 1, 'one read in all: the next check used what the late refresh cached')
})

t.test('given a refresh MongoDB never answers, when readGivenUpMs has passed, then the next check reads again instead of joining it', async (t) => {
  const r = await rig(t, { proxied: true })
  const proxy = r.proxy
  if (!proxy) throw new Error('the rig was asked for a proxy')
  const readGivenUpMs = 300
  const authenticator = authenticatorOf(r.readModels, 0, readGivenUpMs)
  t.same(await authenticator.authenticateKey(r.key), ACCOUNT, 'the key is read while MongoDB answers')
  await authenticator.keyInfo(ACCOUNT.keyId)
  const keyReads = keyReadsOf(r.client)

  // Given: a refresh stuck on a connection that no longer answers, and a check joining it
  proxy.holdAll()
  t.same((await timedCheck(authenticator, r.key)).answer, ACCOUNT, 'answered as last read')
  const stuckSince = Date.now()
  t.same((await timedCheck(authenticator, r.key)).answer, ACCOUNT, 'answered as last read')

  // When
  await until('readGivenUpMs to pass', () => Date.now() > stuckSince + readGivenUpMs + 50, 10_000, 25)
  const later = await timedCheck(authenticator, r.key)
  proxy.release()

  // Then
  t.same(later.answer, ACCOUNT, 'still answered as last read')
  await until('two reads of the key to be answered: the one given up on, and the one after it', () => keyReads.answered() >= 2, 30_000, 10)
  t.equal(keyReads.sent(), 2, 'the check within readGivenUpMs joined the first read; the one after it read again')
})

t.test('given a key never read and MongoDB away, then it is not accepted', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mats-auth-away-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const mongo = await startMongo({ dataDir: dir, database: 'auth' })
  const client = await new MongoClient(mongo.url, { serverSelectionTimeoutMS: 1000 }).connect()
  t.teardown(() => client.close())
  const readModels = new ReadModels(client.db('auth'), ALL_PROJECTIONS)
  await readModels.init()
  await mongo.stop()
  const failure = await authenticatorOf(readModels, 0)
    .authenticateKey(generateApiKey().key)
    .then(
      () => null,
      (err: unknown) => err,
    )
  t.ok(isDependencyUnavailable(failure), `a key nobody read is not guessed: the check fails as MongoDB out of reach, a 503 (${String(failure)})`)
})

import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MongoClient } from 'mongodb'
import t from 'tap'
import { ALL_PROJECTIONS, apiKeysProjection, ReadModels, type ApiKeyDoc, type Stored } from '../../projections/index.js'
import { generateApiKey } from '../../src/domain/accounts/api-key-secret.js'
import { UnauthorizedError } from '../../src/domain/errors.js'
import { ApiKeyAuthenticator } from '../../src/http/authenticator.js'
import { startMongo } from '../../src/infra/local/servers.js'
import { isDependencyUnavailable } from '../../src/infra/unavailable.js'
import { until } from '../helpers/wait.js'

/**
 * Invariant 11 on the key check: with MongoDB out of reach a POST needs only NATS, so a key
 * this process has read before must not hold the request for the driver's timeout.
 */
t.test(
  'given a key read before and MongoDB killed, when the key is checked, then it is answered from the last read before MongoDB gives up, and its revocation is seen once MongoDB is back',
  async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'mats-auth-away-'))
    t.teardown(() => rm(dir, { recursive: true, force: true }))
    let mongo = await startMongo({ dataDir: dir, database: 'auth' })
    t.teardown(() => mongo.stop())
    // A driver that waits 30 s for a server: the old key check held the request that long.
    const client = await new MongoClient(mongo.url, { serverSelectionTimeoutMS: 30_000 }).connect()
    t.teardown(() => client.close())
    const readModels = new ReadModels(client.db('auth'), ALL_PROJECTIONS)
    await readModels.init()
    const { key, keyHash, keyPrefix } = generateApiKey()
    const doc: Stored<ApiKeyDoc> = { _id: 'key-1', _seq: 1, accountId: 'acct-1', name: 'ci', keyHash, keyPrefix, createdAt: new Date().toISOString(), expiresAt: null, revokedAt: null }
    const keys = readModels.collection<ApiKeyDoc>(apiKeysProjection)
    await keys.insertOne(doc)
    // A TTL of 0: every check reads the key again.
    const authenticator = new ApiKeyAuthenticator(readModels, 0, () => new Date())
    t.same(await authenticator.authenticateKey(key), { accountId: 'acct-1', keyId: 'key-1' }, 'the key is read while MongoDB is up')

    // Given
    const { port } = mongo
    mongo.process.kill('SIGKILL')
    await new Promise((resolve) => mongo.process.once('exit', resolve))

    // When: a read of the same collection, sent first, shows when the driver gives up.
    let driverGaveUp = false
    const probe = keys.findOne({ _id: 'key-1' }).then(
      () => undefined,
      () => undefined,
    )
    void probe.finally(() => {
      driverGaveUp = true
    })
    const principal = await authenticator.authenticateKey(key)

    // Then
    t.same(principal, { accountId: 'acct-1', keyId: 'key-1' }, 'the key is accepted as last read')
    t.notOk(driverGaveUp, 'answered while the driver still waited for a server')

    mongo = await startMongo({ dataDir: dir, database: 'auth', port })
    await probe
    await keys.updateOne({ _id: 'key-1' }, { $set: { revokedAt: new Date().toISOString() } })
    const refused = await until(
      'the revocation to be seen',
      () =>
        authenticator.authenticateKey(key).then(
          () => false,
          (err: unknown) => err,
        ),
      30_000,
      100,
    )
    t.type(refused, UnauthorizedError)
    t.match((refused as Error).message, /revoked/, 'refused as revoked once MongoDB answers again')
  },
)

t.test('given a key never read and MongoDB away, then it is not accepted', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mats-auth-away-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const mongo = await startMongo({ dataDir: dir, database: 'auth' })
  const client = await new MongoClient(mongo.url, { serverSelectionTimeoutMS: 1000 }).connect()
  t.teardown(() => client.close())
  const readModels = new ReadModels(client.db('auth'), ALL_PROJECTIONS)
  await readModels.init()
  await mongo.stop()
  const authenticator = new ApiKeyAuthenticator(readModels, 0, () => new Date())
  const failure = await authenticator.authenticateKey(generateApiKey().key).then(
    () => null,
    (err: unknown) => err,
  )
  t.ok(isDependencyUnavailable(failure), `a key nobody read is not guessed: the check fails as MongoDB out of reach, a 503 (${String(failure)})`)
})

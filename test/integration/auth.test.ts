import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { Kvm } from '@nats-io/kv'
import t, { type Test } from 'tap'
import type { CreatedApiKey } from '../../src/commands/create-api-key/create-api-key.js'
import { execute, operator } from '../../src/commands/execute.js'
import { ApiKey, decideCreateApiKey } from '../../src/domain/accounts/api-key.js'
import { revokeApiKey } from '../../src/commands/revoke-api-key/revoke-api-key.js'
import { InvalidInputError, NotFoundError } from '../../src/domain/errors.js'
import type { AppContext } from '../../src/app-context.js'
import { ApiClient, type ApiResponse } from '../helpers/http.js'
import { aCaller, aKey, anAccount, aSessionBody } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { connectTestInfra, startTestService } from '../helpers/service.js'
import { until } from '../helpers/wait.js'

interface KeyInfo {
  id: string
  name: string
  keyPrefix: string
  createdAt: string
  lastUsedAt: string | null
  expiresAt: string | null
}
interface ErrorBody {
  error: string
}

const servers = await startServers(t)
const service = await startTestService(t, servers)
const ops = await connectTestInfra(t, servers) // an operator's process, as the CLI would be
const anonymous = new ApiClient(service.url)
const PROTECTED = ['/v1/agents', '/v1/me']

const aForgedKey = () => `mats_${randomBytes(32).toString('base64url')}`
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')
const bearer = (key: string) => ({ authorization: `Bearer ${key}` })

function assertUnauthorized(t: Test, res: ApiResponse<unknown>, what: string, message: RegExp): void {
  t.equal(res.status, 401, `${what}: 401`)
  t.equal(res.headers.get('www-authenticate'), 'Bearer', `${what}: WWW-Authenticate: Bearer`)
  const body = res.body as Record<string, unknown>
  t.same(Object.keys(body ?? {}).sort(), ['code', 'error'], `${what}: body is exactly { error, code }`)
  t.equal(body?.code, 'unauthenticated', `${what}: code`)
  t.match(body?.error, message, `${what}: the error says why`)
}

/** Polls GET /v1/agents until it answers anything but 200; returns that answer and when it came. */
function firstRefusal(api: ApiClient, what: string, timeoutMs: number) {
  return until(
    what,
    async () => {
      const res = await api.get<ErrorBody>('/v1/agents')
      return res.status !== 200 && { res, at: Date.now() }
    },
    timeoutMs,
  )
}

/** Every document of every collection of every database on the server, as JSON. */
async function everyMongoDocument(infra: AppContext): Promise<{ where: string; collection: string; text: string }[]> {
  const dumps: { where: string; collection: string; text: string }[] = []
  const { databases } = await infra.mongo.db().admin().listDatabases()
  for (const { name } of databases) {
    const db = infra.mongo.db(name)
    for (const { name: collection } of await db.listCollections({}, { nameOnly: true }).toArray()) {
      dumps.push({ where: `${name}.${collection}`, collection, text: JSON.stringify(await db.collection(collection).find({}).toArray()) })
    }
  }
  return dumps
}

/** Every stored message (subject, headers, data) of every JetStream stream, and how many the streams say they hold. */
async function everyStreamMessage(infra: AppContext): Promise<{ messages: { stream: string; text: string }[]; held: number }> {
  const messages: { stream: string; text: string }[] = []
  let held = 0
  for await (const stream of infra.jsm.streams.names()) {
    if (stream.startsWith('KV_')) {
      // A KV bucket's content is its keys' current values; some are rewritten every second
      // (projector leases), so its stream cannot be read as a still snapshot.
      messages.push(...(await bucketValues(infra, stream.slice(3))).map((text) => ({ stream, text })))
      continue
    }
    const { state } = await infra.jsm.streams.info(stream)
    held += state.messages
    if (state.messages === 0) continue
    for (let seq = state.first_seq; seq <= state.last_seq; seq++) {
      const m = await infra.jsm.streams.getMessage(stream, { seq })
      if (!m) continue
      const headers = m.header.keys().flatMap((k) => m.header.values(k).map((v) => `${k}: ${v}`))
      messages.push({ stream, text: [m.subject, ...headers, m.string()].join('\n') })
    }
  }
  return { messages, held }
}

async function bucketValues(infra: AppContext, bucket: string): Promise<string[]> {
  const kv = await new Kvm(infra.js).open(bucket)
  const values: string[] = []
  for await (const key of await kv.keys()) {
    const entry = await kv.get(key)
    if (entry) values.push(`${key}\n${entry.string()}`)
  }
  return values
}

t.test('given a missing, malformed, unknown, revoked or expired key, when calling a protected route, then 401 { error } with WWW-Authenticate', async (t) => {
  const account = await anAccount(service.infra)
  const valid = await aKey(service.infra, account.id)
  const revoked = await aKey(service.infra, account.id)
  await revokeApiKey(ops, { keyId: revoked.id }, operator())
  const expiresAt = new Date(Date.now() + 300)
  const expired = await aKey(service.infra, account.id, { expiresAt })
  await until('the short-lived key to pass its expiry', () => Date.now() > expiresAt.getTime(), 5000)

  const cases: [string, Record<string, string>, RegExp][] = [
    ['no Authorization header', {}, /missing Authorization/],
    ['Basic scheme', { authorization: 'Basic abc' }, /malformed/],
    ['Bearer alone', { authorization: 'Bearer' }, /malformed/],
    ['Bearer with two tokens', { authorization: 'Bearer a b' }, /malformed/],
    ['well-formed but unknown key', bearer(aForgedKey()), /invalid API key/],
    ['a real secret with the wrong prefix', bearer(`test_${valid.key.slice(5)}`), /invalid API key/],
    ['revoked key', bearer(revoked.key), /revoked/],
    ['expired key', bearer(expired.key), /expired/],
  ]
  for (const path of PROTECTED) {
    for (const [what, headers, message] of cases) assertUnauthorized(t, await anonymous.get(path, headers), `${path}, ${what}`, message)
    t.equal((await anonymous.get(path, bearer(valid.key))).status, 200, `${path}, valid key: 200`)
  }
})

t.test('given two API processes that both accept a key, when it is revoked, then each refuses it within 5 s', async (t) => {
  const second = await startTestService(t, servers, { roles: ['api'] })
  const { account, key } = await aCaller(service.infra, service.url)
  const processes = [
    ['first (all roles)', new ApiClient(service.url, key.key)],
    ['second (api only)', new ApiClient(second.url, key.key)],
  ] as const
  for (const [name, api] of processes) t.equal((await api.get('/v1/agents')).status, 200, `the ${name} process accepts the key`)

  const start = Date.now()
  t.same(await revokeApiKey(ops, { keyId: key.id }, operator()), { id: key.id, accountId: account.id, revoked: true })
  const refusals = await Promise.all(processes.map(([name, api]) => firstRefusal(api, `the ${name} process to refuse the key`, 10_000)))
  processes.forEach(([name], i) => {
    const refusal = refusals[i]
    if (!refusal) throw new Error(`no refusal measured for ${name}`)
    const ms = refusal.at - start
    t.comment(`${name} process refused the revoked key ${ms} ms after revokeApiKey was called`)
    assertUnauthorized(t, refusal.res, name, /revoked/)
    t.ok(ms < 5000, `the ${name} process refuses the key within 5 s (took ${ms} ms)`)
  })

  t.same(await revokeApiKey(ops, { keyId: key.id }, operator()), { id: key.id, accountId: account.id, revoked: false }, 'revoking again changes nothing')
  await t.rejects(revokeApiKey(ops, { keyId: randomUUID() }, operator()), NotFoundError, 'an unknown key id is NotFoundError')
})

t.test('given a key that expires in 1.5 s, when that time passes, then it is refused as expired', async (t) => {
  const account = await anAccount(service.infra)
  const expiresAt = new Date(Date.now() + 1500)
  const key = await aKey(service.infra, account.id, { expiresAt })
  t.equal(key.expiresAt, expiresAt.toISOString())
  const api = new ApiClient(service.url, key.key)
  t.equal((await api.get('/v1/agents')).status, 200, 'it works before its expiry')
  const refusal = await firstRefusal(api, 'the key to expire', 10_000)
  t.ok(refusal.at >= expiresAt.getTime(), `it is not refused before expiresAt (refused ${refusal.at - expiresAt.getTime()} ms after)`)
  assertUnauthorized(t, refusal.res, 'after expiresAt', /expired/)

  await t.rejects(aKey(service.infra, account.id, { expiresAt: new Date(Date.now() - 1000) }), InvalidInputError, 'an expiresAt in the past is refused')
})

t.test('given several keys created and used, when reading everything at rest, then no raw key is stored anywhere', async (t) => {
  const account = await anAccount(service.infra)
  const keys: CreatedApiKey[] = []
  for (let i = 0; i < 3; i++) keys.push(await aKey(service.infra, account.id, { name: `key ${i}` }))
  for (const key of keys) {
    const api = new ApiClient(service.url, key.key)
    t.equal((await api.get('/v1/agents')).status, 200)
    t.equal((await api.get('/v1/me')).status, 200)
    t.equal((await api.post('/v1/sessions', aSessionBody())).status, 201)
  }
  await revokeApiKey(ops, { keyId: keys[2]?.id ?? '' }, operator())

  const documents = await everyMongoDocument(ops)
  const { messages, held } = await everyStreamMessage(ops)
  t.ok(documents.length > 0 && messages.length > 0, `read ${documents.length} collections and ${messages.length} stream messages`)
  t.equal(messages.filter((m) => !m.stream.startsWith('KV_')).length, held, 'every message the event streams hold was read')
  keys.forEach((key, i) => {
    const secret = key.key.slice(5)
    t.same(
      documents.filter((d) => d.text.includes(secret)).map((d) => d.where),
      [],
      `key ${i}: in no MongoDB collection`,
    )
    t.same(
      messages.filter((m) => m.text.includes(secret)).map((m) => m.stream),
      [],
      `key ${i}: in no stream message`,
    )
    t.ok(
      documents.some((d) => d.collection.startsWith('api_keys') && d.text.includes(sha256(key.key))),
      `key ${i}: its SHA-256 is in api_keys`,
    )
    t.ok(
      messages.some((m) => m.stream === 'MATS_ACCOUNTS' && m.text.includes(key.keyPrefix)),
      `key ${i}: its prefix is in MATS_ACCOUNTS`,
    )
  })
})

t.test('given two accounts’ keys, when each calls GET /v1/me, then each sees its own key info and never the key', async (t) => {
  const alice = await aCaller(service.infra, service.url)
  const bobAccount = await anAccount(service.infra)
  const bob = await aKey(service.infra, bobAccount.id, { name: 'bob ci', expiresAt: new Date(Date.now() + 3_600_000) })
  for (const [who, key] of [
    ['alice', alice.key],
    ['bob', bob],
  ] as const) {
    const before = Date.now()
    const res = await anonymous.get<{ key: KeyInfo }>('/v1/me', bearer(key.key))
    const after = Date.now()
    t.equal(res.status, 200, `${who}: 200`)
    t.same(Object.keys(res.body), ['key'], `${who}: body is { key }`)
    const { lastUsedAt, ...info } = res.body.key
    t.same(info, { id: key.id, name: key.name, keyPrefix: key.key.slice(0, 13), createdAt: key.createdAt, expiresAt: key.expiresAt }, `${who}: the key’s own info`)
    t.match(lastUsedAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/, `${who}: lastUsedAt is a date-time`)
    const used = Date.parse(lastUsedAt ?? '')
    t.ok(used >= before && used <= after, `${who}: lastUsedAt is this request (${lastUsedAt})`)
    t.equal(info.keyPrefix.length, 13)
    t.equal(key.key.length, 48)
    t.notOk(JSON.stringify(res.body).includes(key.key), `${who}: the response does not contain the key`)
  }
  t.not(alice.key.id, bob.id, 'two different keys were compared')
})

t.test('given no key, when calling the public routes, then 200', async (t) => {
  for (const path of ['/v1/openapi.json', '/healthz', '/readyz']) {
    t.equal((await anonymous.get(path)).status, 200, `${path} needs no key`)
  }
})

/** Counts the lookups of API keys by hash that reach MongoDB (driver command monitoring). */
function keyLookups(infra: AppContext): { count(): number } {
  let count = 0
  infra.mongo.on('commandStarted', (event) => {
    const filter: unknown = event.command.filter
    if (event.commandName === 'find' && String(event.command.find).startsWith('api_keys') && typeof filter === 'object' && filter !== null && 'keyHash' in filter) count++
  })
  return { count: () => count }
}

const monitored = (env: Record<string, string>) => ({ env: { MONGODB_URL: `${servers.mongoUrl}?monitorCommands=true`, ...env } })

/** A key whose secret the test chose, made through the real command path (execute + decide). */
async function aKeyWithSecret(infra: AppContext, accountId: string, key: string): Promise<void> {
  const command = { name: 'chosen', keyHash: sha256(key), keyPrefix: key.slice(0, 13), expiresAt: null, now: new Date(), accountExists: true }
  await execute(infra, ApiKey, { accountId, aggregateId: randomUUID() }, (state) => decideCreateApiKey(command, state), operator(), { isNew: true })
}

t.test('given made-up keys from one address, when they keep coming, then 429 with Retry-After past the limit and the database is asked only within it', async (t) => {
  // The flood must fit in one emission interval (60 s / limit), or the quota refills during it
  // and more than `limit` get through: 20 a minute (3 s) was too tight on a loaded machine (40
  // requests took most of 20 s at load average 24: 23 lookups, not 21); 4 a minute gives 8 requests 15 s.
  const limit = 4
  const own = await startTestService(t, servers, monitored({ RATE_LIMIT_AUTH_FAILURES_PER_MIN: String(limit) }))
  const lookups = keyLookups(own.infra)
  const { key: used } = await aCaller(own.infra, own.url)
  const neverUsed = await aKey(own.infra, (await anAccount(own.infra)).id)
  const client = new ApiClient(own.url)
  t.equal((await client.get('/v1/agents', bearer(used.key))).status, 200, 'a real key is used once before the flood')

  const before = lookups.count()
  const statuses: number[] = []
  let lastRefusal: ApiResponse<ErrorBody> | null = null
  for (let i = 0; i < 2 * limit; i++) {
    const res = await client.get<ErrorBody>('/v1/agents', bearer(aForgedKey()))
    statuses.push(res.status)
    if (res.status === 429) lastRefusal = res
  }
  t.same(statuses, [...Array(limit).fill(401), ...Array(limit).fill(429)], `${limit} × 401, then 429 for the rest`)
  // The failure that goes over the quota is known to be one only after its lookup.
  const afterFlood = lookups.count()
  t.equal(afterFlood - before, limit + 1, `${2 * limit} made-up keys cost ${limit + 1} lookups (got ${afterFlood - before})`)
  if (!lastRefusal) throw new Error('no 429 seen')
  const retryAfter = Number(lastRefusal.headers.get('retry-after'))
  t.ok(Number.isInteger(retryAfter) && retryAfter >= 1, `Retry-After is whole seconds (${lastRefusal.headers.get('retry-after')})`)
  t.same(lastRefusal.body, { error: lastRefusal.body.error, code: 'rate_limited' }, 'the 429 body is exactly { error, code }')
  t.match(lastRefusal.body.error, /too many failed authentications/)

  t.equal((await client.get('/v1/agents')).status, 429, 'while blocked: no key at all is 429 too')
  const mcp = await fetch(`${own.url}/mcp`, { method: 'POST', headers: { ...bearer(aForgedKey()), 'content-type': 'application/json' }, body: '{}' })
  t.equal(mcp.status, 429, 'while blocked: POST /mcp with a made-up key is 429')
  t.ok(mcp.headers.get('retry-after'), 'with Retry-After')
  t.equal((await client.get('/v1/agents', bearer(used.key))).status, 200, 'while blocked: a key this process has found keeps working')
  t.equal((await client.get('/v1/agents', bearer(neverUsed.key))).status, 429, 'while blocked: a real key this process never saw waits like the rest (documented)')
  t.ok(lookups.count() - afterFlood <= 1, `the blocked requests reached the database at most for the known key, once its cache entry was due (${lookups.count() - afterFlood})`)

  const admitted = await until(
    'a made-up key to be looked at again after Retry-After',
    async () => {
      const res = await client.get('/v1/agents', bearer(aForgedKey()))
      return res.status === 401 && Date.now()
    },
    (retryAfter + 3) * 1000,
    250,
  )
  t.ok(admitted, 'after Retry-After the address is admitted again (401 for a made-up key)')
})

t.test('given the same unknown key sent repeatedly, then it is looked up once per AUTH_CACHE_TTL_MS, and creating a key with that hash ends the cached miss at once', async (t) => {
  const own = await startTestService(t, servers, monitored({ AUTH_CACHE_TTL_MS: '4000' }))
  const lookups = keyLookups(own.infra)
  const account = await anAccount(own.infra)
  const client = new ApiClient(own.url)
  const key = aForgedKey()

  const before = lookups.count()
  for (let i = 0; i < 10; i++) assertUnauthorized(t, await client.get('/v1/agents', bearer(key)), `attempt ${i + 1}`, /invalid API key/)
  t.equal(lookups.count() - before, 1, '10 attempts with one unknown key: 1 lookup')

  const created = Date.now()
  await aKeyWithSecret(ops, account.id, key)
  const accepted = await until('the new key to be accepted', async () => (await client.get('/v1/agents', bearer(key))).status === 200 && Date.now(), 2000)
  t.ok(accepted - created < 2000, `accepted ${accepted - created} ms after its creation in another process, well before the 4 s a cached miss lasts`)
})

/** Made-up keys sent "from" each address in X-Forwarded-For, one after another; the statuses. */
async function failuresFrom(url: string, addresses: readonly string[]): Promise<number[]> {
  const statuses: number[] = []
  for (const address of addresses) statuses.push((await anonymous.withBaseUrl(url).get('/v1/me', { ...bearer(aForgedKey()), 'x-forwarded-for': address })).status)
  return statuses
}

t.test('given TRUST_PROXY names the proxy, when made-up keys come through it from clients, then failures count per IPv4 address and per IPv6 /64', async (t) => {
  const own = await startTestService(t, servers, { roles: ['api'], env: { RATE_LIMIT_AUTH_FAILURES_PER_MIN: '3', TRUST_PROXY: 'loopback' } })
  const sameSlash64 = ['2001:db8:1:2::1', '2001:db8:1:2::ffff', '2001:db8:1:2:aaaa:bbbb:cccc:dddd', '2001:0db8:0001:0002::9']
  t.same(await failuresFrom(own.url, sameSlash64), [401, 401, 401, 429], 'four addresses of one /64 share one quota of 3')
  t.same(await failuresFrom(own.url, ['2001:db8:1:3::1']), [401], 'the next /64 has its own')
  t.same(await failuresFrom(own.url, ['203.0.113.7', '203.0.113.7', '203.0.113.7', '203.0.113.7']), [401, 401, 401, 429], 'an IPv4 address has its own')
  t.same(await failuresFrom(own.url, ['203.0.113.8', '::ffff:203.0.113.7']), [401, 429], 'the next IPv4 address is another client; the same one mapped into IPv6 is not')
})

t.test('given TRUST_PROXY unset, when made-up keys carry X-Forwarded-For, then it is not believed: all count against the peer', async (t) => {
  // Servers of its own: the peer's quota (127.0.0.1) is shared state the other tests spend.
  const own = await startTestService(t, await startServers(t), { roles: ['api'], env: { RATE_LIMIT_AUTH_FAILURES_PER_MIN: '3' } })
  t.same(await failuresFrom(own.url, ['203.0.113.1', '203.0.113.2', '2001:db8:9::1', '198.51.100.4']), [401, 401, 401, 429], 'four claimed addresses, one peer, one quota')
})

t.test('given TRUST_PROXY names other proxies than the peer, then X-Forwarded-For from the peer is not believed', async (t) => {
  const own = await startTestService(t, await startServers(t), { roles: ['api'], env: { RATE_LIMIT_AUTH_FAILURES_PER_MIN: '2', TRUST_PROXY: '10.0.0.0/8' } })
  t.same(await failuresFrom(own.url, ['203.0.113.1', '203.0.113.2', '203.0.113.3']), [401, 401, 429])
})

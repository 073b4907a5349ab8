import { createHash } from 'node:crypto'
import t from 'tap'
import { ApiKey, decideCreateApiKey, decideRevokeApiKey, type ApiKeyEvent, type ApiKeyState, type CreateApiKey } from '../../src/domain/accounts/api-key.js'
import { generateApiKey, hashApiKey, hashesEqual, isWellFormedApiKey, KEY_PREFIX } from '../../src/domain/accounts/api-key-secret.js'
import { ConflictError, InvalidInputError, NotFoundError } from '../../src/domain/errors.js'

const now = new Date('2030-01-01T00:00:00.000Z')
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex')
const given = (...events: ApiKeyEvent[]): ApiKeyState => events.reduce(ApiKey.evolve, ApiKey.initialState)
const created: ApiKeyEvent = { type: 'ApiKeyCreated', data: { name: 'ci', keyHash: 'h', keyPrefix: 'mats_abcdefgh', expiresAt: null } }
const revoked: ApiKeyEvent = { type: 'ApiKeyRevoked', data: { reason: 'leaked' } }
const whenCreate =
  (state: ApiKeyState, command: Partial<CreateApiKey> = {}) =>
  () =>
    decideCreateApiKey({ name: 'ci', keyHash: 'h', keyPrefix: 'mats_abcdefgh', expiresAt: null, now, accountExists: true, ...command }, state)
const whenRevoke =
  (state: ApiKeyState, reason: string | null = null) =>
  () =>
    decideRevokeApiKey({ reason }, state)

t.test('creating a key appends ApiKeyCreated with the name trimmed and expiry as ISO text', async (t) => {
  const expiresAt = new Date(now.getTime() + 60_000)
  t.same(whenCreate(given(), { name: '  deploy bot  ', expiresAt })(), [
    { type: 'ApiKeyCreated', data: { name: 'deploy bot', keyHash: 'h', keyPrefix: 'mats_abcdefgh', expiresAt: '2030-01-01T00:01:00.000Z' } },
  ])
  t.same(whenCreate(given())(), [created], 'no expiry is recorded as null')
})

t.test('creating a key for an account that does not exist is not found', async (t) => {
  t.throws(whenCreate(given(), { accountExists: false }), NotFoundError)
  t.throws(whenCreate(given(), { accountExists: false }), { message: /account not found/ })
})

t.test('creating a key that already exists is a conflict', async (t) => {
  t.throws(whenCreate(given(created)), ConflictError)
})

t.test('an expiry in the past or equal to now is refused, naming expiresAt', async (t) => {
  for (const expiresAt of [new Date(now.getTime() - 1), new Date(now.getTime())]) {
    t.throws(whenCreate(given(), { expiresAt }), InvalidInputError, `${expiresAt.toISOString()} is refused`)
    t.throws(whenCreate(given(), { expiresAt }), { message: /^expiresAt: / })
  }
  t.equal(whenCreate(given(), { expiresAt: new Date(now.getTime() + 1) })().length, 1, 'one millisecond ahead is accepted')
})

t.test('an empty or over-long key name is refused, naming name', async (t) => {
  for (const name of ['  ', 'n'.repeat(121)]) t.throws(whenCreate(given(), { name }), { name: 'InvalidInputError', message: /^name: / })
})

t.test('revoking an absent key is not found', async (t) => {
  t.throws(whenRevoke(given()), NotFoundError)
  t.throws(whenRevoke(given()), { message: /api key not found/ })
})

t.test('revoking an active key appends ApiKeyRevoked with its reason', async (t) => {
  t.same(whenRevoke(given(created), 'leaked')(), [revoked])
  t.same(given(created, revoked), { status: 'revoked', name: 'ci', expiresAt: null })
})

t.test('revoking a key twice appends nothing the second time', async (t) => {
  t.same(whenRevoke(given(created, revoked), 'again')(), [])
})

t.test('a generated key is mats_ followed by 43 base64url characters and is well formed', async (t) => {
  const { key } = generateApiKey()
  t.match(key, /^mats_[A-Za-z0-9_-]{43}$/)
  t.equal(KEY_PREFIX, 'mats_')
  t.ok(isWellFormedApiKey(key))
})

t.test('a thousand generated keys are all distinct', async (t) => {
  const keys = Array.from({ length: 1000 }, () => generateApiKey())
  t.equal(new Set(keys.map((k) => k.key)).size, 1000)
  t.equal(new Set(keys.map((k) => k.keyHash)).size, 1000)
})

t.test('the display prefix is 13 characters and starts the key', async (t) => {
  const { key, keyPrefix } = generateApiKey()
  t.equal(keyPrefix.length, 13)
  t.ok(key.startsWith(keyPrefix))
})

t.test('the stored hash is the SHA-256 hex of the key and never contains the key', async (t) => {
  for (let i = 0; i < 50; i++) {
    const { key, keyHash } = generateApiKey()
    t.equal(keyHash, sha256(key))
    t.equal(hashApiKey(key), sha256(key))
    t.match(keyHash, /^[0-9a-f]{64}$/)
    t.notOk(keyHash.includes(key) || keyHash.includes(key.slice(KEY_PREFIX.length)), 'the hash does not leak the key')
  }
})

t.test('hashesEqual is true for the same hash and false otherwise', async (t) => {
  const a = sha256('a')
  t.ok(hashesEqual(a, sha256('a')))
  t.notOk(hashesEqual(a, sha256('b')))
  t.notOk(hashesEqual(a, a.slice(0, 62)), 'different lengths are unequal, not a throw')
  t.notOk(hashesEqual(a, ''))
})

t.test('hashesEqual refuses text that is not a full hex hash', async (t) => {
  // Buffer.from(x, 'hex') stops at the first non-hex pair, so these would all decode to the same bytes.
  t.notOk(hashesEqual('zz', 'yy'), 'two non-hex strings are not equal')
  t.notOk(hashesEqual('', ''), 'two empty strings are not a match')
  t.notOk(hashesEqual(`${sha256('a')}`, `${sha256('a')}zz`), 'trailing garbage is not ignored')
})

t.test('isWellFormedApiKey rejects a wrong prefix, wrong length and bad characters', async (t) => {
  const body = 'A'.repeat(43)
  t.ok(isWellFormedApiKey(`mats_${body}`))
  for (const candidate of [
    `matz_${body}`,
    `MATS_${body}`,
    body,
    `mats_${body.slice(1)}`,
    `mats_${body}A`,
    `mats_${body.slice(1)}+`,
    `mats_${body.slice(1)}/`,
    `mats_${body.slice(1)}=`,
    ` mats_${body}`,
    `mats_${body}\n`,
    '',
  ]) {
    t.notOk(isWellFormedApiKey(candidate), `${JSON.stringify(candidate)} is rejected`)
  }
})

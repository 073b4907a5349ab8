import t from 'tap'
import { addressInUse, cannotConnect, unreachableMessage } from '../../src/cli/hints.js'
import { isoDate, parse, unknownVerb, usd, uuid, UsageError } from '../../src/cli/io.js'
import { didYouMean, editDistance } from '../../src/cli/suggest.js'
import { InvalidInputError } from '../../src/domain/errors.js'

t.test('a plain non-negative amount of USD is read as a number', async (t) => {
  t.equal(usd('12.5', '--x'), 12.5)
  t.equal(usd('0', '--x'), 0)
  t.equal(usd('100', '--budget'), 100)
})

t.test('an absent amount stays undefined', async (t) => {
  t.equal(usd(undefined, '--x'), undefined)
})

t.test('a negative, non-numeric or empty amount is refused, naming the flag and the text', async (t) => {
  for (const value of ['-1', 'abc', '', '   ', 'Infinity', 'NaN']) {
    t.throws(() => usd(value, '--budget'), InvalidInputError, `${JSON.stringify(value)} is refused`)
    t.throws(() => usd(value, '--budget'), { message: `--budget: must be a non-negative amount in USD (got "${value}")` })
  }
})

t.test('a UUID in either case is accepted as given', async (t) => {
  t.equal(uuid('0b5f0c2e-6a8e-4b8e-9f5e-1c2d3e4f5a6b', 'task id'), '0b5f0c2e-6a8e-4b8e-9f5e-1c2d3e4f5a6b')
  t.equal(uuid('0B5F0C2E-6A8E-4B8E-9F5E-1C2D3E4F5A6B', 'task id'), '0B5F0C2E-6A8E-4B8E-9F5E-1C2D3E4F5A6B')
})

t.test('anything that is not a UUID is refused, naming what was expected', async (t) => {
  for (const value of [
    'abc',
    '0b5f0c2e6a8e4b8e9f5e1c2d3e4f5a6b',
    '0b5f0c2e-6a8e-4b8e-9f5e-1c2d3e4f5a6',
    '0b5f0c2e-6a8e-4b8e-9f5e-1c2d3e4f5a6bc',
    '0b5f0c2e-6a8e-4b8e-9f5e-1c2d3e4f5a6g',
    ' 0b5f0c2e-6a8e-4b8e-9f5e-1c2d3e4f5a6b',
  ]) {
    t.throws(() => uuid(value, 'task id'), InvalidInputError, `${JSON.stringify(value)} is refused`)
    t.throws(() => uuid(value, 'task id'), { message: /^task id: must be a UUID/ })
  }
})

t.test('a missing UUID is a usage error, not invalid input', async (t) => {
  t.throws(() => uuid(undefined, 'task id'), UsageError)
  t.throws(() => uuid('', 'task id'), UsageError)
})

t.test('an ISO 8601 date-time is read as that instant', async (t) => {
  t.equal(isoDate('2030-01-02T03:04:05.000Z', '--expires')?.toISOString(), '2030-01-02T03:04:05.000Z')
  t.equal(isoDate('2030-01-02T03:04:05+02:00', '--expires')?.toISOString(), '2030-01-02T01:04:05.000Z')
  t.equal(isoDate(undefined, '--expires'), undefined)
})

t.test('a date that cannot be read is refused, naming the flag', async (t) => {
  for (const value of ['garbage', 'tomorrow', '2030-13-45T99:00:00Z', '']) {
    t.throws(() => isoDate(value, '--expires'), InvalidInputError, `${JSON.stringify(value)} is refused`)
    t.throws(() => isoDate(value, '--expires'), { message: /^--expires: must be an ISO 8601 date-time/ })
  }
})

t.test('an unknown option is refused naming it as typed, with the nearest known one', async (t) => {
  t.throws(() => parse(['--nmae', 'Acme'], { name: { type: 'string' } }), { name: 'UsageError', message: 'unknown option --nmae; did you mean --name?' })
  t.throws(() => parse(['--monthly-budjet=5'], { 'monthly-budget': { type: 'string' } }), { message: 'unknown option --monthly-budjet; did you mean --monthly-budget?' })
})

t.test('an unknown option far from every known one gets no suggestion', async (t) => {
  t.throws(() => parse(['--zzzzzz'], { name: { type: 'string' } }), { name: 'UsageError', message: 'unknown option --zzzzzz' })
})

t.test('a verb a command does not have suggests the nearest; a missing verb lists them', async (t) => {
  t.equal(unknownVerb('projections', 'stauts', ['rebuild', 'status']).message, 'unknown command: projections stauts; did you mean status?')
  t.equal(unknownVerb('keys', undefined, ['create', 'revoke', 'list']).message, 'keys: which one? create, revoke, list')
})

t.test('edit distance counts a swap of neighbours as one edit', async (t) => {
  t.equal(editDistance('status', 'stauts'), 1)
  t.equal(editDistance('kitten', 'sitting'), 3)
  t.equal(editDistance('name', 'nmae'), 1)
  t.equal(editDistance('', 'abc'), 3)
  t.equal(didYouMean('acounts', ['accounts', 'keys']), '; did you mean accounts?')
})

t.test('an unreachable server is named with its URL, without its password, and the variable to set', async (t) => {
  const config = { NATS_URL: 'nats://ops:s3cret@10.0.0.1:4222', MONGODB_URL: 'mongodb://app:pw@10.0.0.2:27017/mats' }
  const nats = unreachableMessage(new Error('connection refused'), config)
  t.match(nats, /^cannot reach NATS at nats:\/\/ops:\*\*\*@10\.0\.0\.1:4222 \(connection refused\)/)
  t.match(nats, /Set NATS_URL .*DEV_NATS_PORT/)
  t.notMatch(nats, /s3cret/)
  const mongoError = Object.assign(new Error('connect ECONNREFUSED'), { name: 'MongoServerSelectionError' })
  const mongo = unreachableMessage(mongoError, config)
  t.match(mongo, /^cannot reach MongoDB at mongodb:\/\/app:\*\*\*@10\.0\.0\.2:27017\/mats/)
  t.match(mongo, /Set MONGODB_URL .*DEV_MONGODB_PORT/)
})

t.test('a port in use becomes one line naming PORT and a free one; other errors pass', async (t) => {
  const inUse = Object.assign(new Error('listen EADDRINUSE: address already in use 127.0.0.1:8080'), { code: 'EADDRINUSE', port: 8080 })
  t.equal(
    addressInUse(inUse, '127.0.0.1', { PORT: 8080 }, 40123)?.message,
    'port 8080 (PORT) is already in use on 127.0.0.1: another mats or another program listens there; stop it, or choose a free port, e.g. PORT=40123',
  )
  t.equal(addressInUse(new Error('other'), '127.0.0.1', { PORT: 8080 }, 40123), null)
})

t.test('a METRICS_PORT in use is named as such', async (t) => {
  const inUse = Object.assign(new Error('listen EADDRINUSE: address already in use 127.0.0.1:9464'), { code: 'EADDRINUSE', port: 9464 })
  t.match(addressInUse(inUse, '127.0.0.1', { PORT: 8080, METRICS_PORT: 9464 }, 40123)?.message, /^port 9464 \(METRICS_PORT\) is already in use .* e\.g\. METRICS_PORT=40123$/)
})

t.test('a server out of reach at start becomes one line naming it, its address and its variable; other errors pass', async (t) => {
  const config = { NATS_URL: 'nats://127.0.0.1:1', MONGODB_URL: 'mongodb://app:secret@127.0.0.1:2/mats' }
  const nats = Object.assign(new Error('connection refused'), { name: 'ConnectionError' })
  t.equal(cannotConnect(nats, config)?.message, 'cannot reach NATS at nats://127.0.0.1:1 (NATS_URL): connection refused')
  const mongo = Object.assign(new Error('connect ECONNREFUSED\n127.0.0.1:2'), { name: 'MongoServerSelectionError' })
  t.equal(cannotConnect(mongo, config)?.message, 'cannot reach MongoDB at mongodb://app:***@127.0.0.1:2/mats (MONGODB_URL): connect ECONNREFUSED 127.0.0.1:2')
  const timeout = Object.assign(new Error('timeout'), { name: 'TimeoutError' })
  t.equal(cannotConnect(timeout, config)?.message, 'NATS at nats://127.0.0.1:1 (NATS_URL) did not answer in time: timeout')
  t.equal(cannotConnect(new Error('other'), config), null)
})

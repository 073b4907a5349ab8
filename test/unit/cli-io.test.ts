import t from 'tap'
import { isoDate, usd, uuid, UsageError } from '../../src/cli/io.js'
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
  for (const value of ['abc', '0b5f0c2e6a8e4b8e9f5e1c2d3e4f5a6b', '0b5f0c2e-6a8e-4b8e-9f5e-1c2d3e4f5a6', '0b5f0c2e-6a8e-4b8e-9f5e-1c2d3e4f5a6bc', '0b5f0c2e-6a8e-4b8e-9f5e-1c2d3e4f5a6g', ' 0b5f0c2e-6a8e-4b8e-9f5e-1c2d3e4f5a6b']) {
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

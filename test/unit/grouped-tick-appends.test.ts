import { randomUUID } from 'node:crypto'
import t from 'tap'
import { GroupedTickAppends, MERGED_MESSAGES } from '../../consumers/schedules/grouped-tick-appends.js'
import type { FiredAppended, FiredPair, TickAppends } from '../../src/commands/schedules/tick-batch.js'
import { EventStoreUnavailableError } from '../../src/infra/nats/event-store.js'
import { taskCreatedData } from '../helpers/mothers.js'

/** A fired tick's pair: its task's TaskCreated and its schedule's ScheduleFired (two messages). */
function aFiredPair(): FiredPair {
  const accountId = randomUUID()
  const taskId = randomUUID()
  const scheduledFor = new Date().toISOString()
  return {
    task: { key: { accountId, aggregateId: taskId }, drafts: [{ type: 'TaskCreated', data: taskCreatedData(randomUUID(), 'Audit the blog titles') }], expectedVersion: 0 },
    schedule: { key: { accountId, aggregateId: randomUUID() }, drafts: [{ type: 'ScheduleFired', data: { scheduledFor, taskId } }], expectedVersion: 1 },
    options: { metadata: { correlationId: randomUUID(), causationId: null, keyId: null }, now: new Date() },
  }
}
const pairs = (n: number) => Array.from({ length: n }, aFiredPair)

/** The atomic batches sent, each held until the test ends it. */
function aLog() {
  const sent: { pairs: number; kind: 'together' | 'alone'; end: (err?: unknown) => void }[] = []
  const appends: TickAppends = {
    together: (batch) =>
      new Promise<FiredAppended[]>((resolve, reject) => {
        sent.push({ pairs: batch.length, kind: 'together', end: (err) => (err ? reject(err) : resolve(batch.map((): FiredAppended => [[], []]))) })
      }),
    alone: () =>
      new Promise<FiredAppended>((resolve, reject) => {
        sent.push({ pairs: 1, kind: 'alone', end: (err) => (err ? reject(err) : resolve([[], []])) })
      }),
  }
  return { sent, appends }
}

const settle = () => new Promise((r) => setImmediate(r))

t.test('given a free slot, when a batch comes, then it is sent at once, alone', async (t) => {
  const log = aLog()
  const grouped = new GroupedTickAppends(log.appends, 2)
  const appended = grouped.together(pairs(3))
  t.same(
    log.sent.map(({ pairs }) => pairs),
    [3],
  )
  log.sent[0]?.end()
  t.equal((await appended).length, 3, 'its three pairs come back')
})

t.test('given every slot busy, when batches come, then they wait and leave merged within MERGED_MESSAGES, in order', async (t) => {
  const log = aLog()
  const grouped = new GroupedTickAppends(log.appends, 1)
  const perBatch = MERGED_MESSAGES / 2 / 2 // pairs of two messages: two batches fill a merged one
  const all = [grouped.together(pairs(1)), ...Array.from({ length: 5 }, () => grouped.together(pairs(perBatch)))]
  t.equal(grouped.waiting, 5)
  for (let i = 0; i < 4; i++) {
    log.sent.at(-1)?.end()
    await settle()
  }
  t.same(
    log.sent.map(({ pairs }) => pairs),
    [1, 2 * perBatch, 2 * perBatch, perBatch],
    'two at a time, the last alone',
  )
  const answers = await Promise.all(all)
  t.same(
    answers.map((a) => a.length),
    [1, perBatch, perBatch, perBatch, perBatch, perBatch],
  )
})

t.test('given a pair appended alone waiting, when the slot frees, then it is not merged with the batches around it', async (t) => {
  const log = aLog()
  const grouped = new GroupedTickAppends(log.appends, 1)
  const first = grouped.together(pairs(2))
  const waiting = [grouped.together(pairs(2)), grouped.alone(aFiredPair()), grouped.together(pairs(2))]
  for (let i = 0; i < 4; i++) {
    log.sent.at(-1)?.end()
    await settle()
  }
  await Promise.all([first, ...waiting])
  t.same(
    log.sent.map(({ pairs, kind }) => `${kind} ${pairs}`),
    ['together 2', 'together 2', 'alone 1', 'together 2'],
  )
})

t.test('given a merged batch that NATS does not store, then each of its batches fails with the error; the next go on', async (t) => {
  const log = aLog()
  const grouped = new GroupedTickAppends(log.appends, 1)
  const first = grouped.together(pairs(1))
  const merged = [grouped.together(pairs(2)), grouped.together(pairs(2))]
  log.sent[0]?.end()
  await settle()
  log.sent[1]?.end(new EventStoreUnavailableError('NATS away'))
  const outcomes = await Promise.allSettled(merged)
  t.same(
    outcomes.map((o) => o.status),
    ['rejected', 'rejected'],
  )
  const after = grouped.together(pairs(1))
  log.sent.at(-1)?.end()
  t.equal((await Promise.all([first, after])).length, 2, 'the slot is free again')
})

t.test('given no slot, then it refuses to be made', async (t) => {
  t.throws(() => new GroupedTickAppends(aLog().appends, 0), RangeError)
})

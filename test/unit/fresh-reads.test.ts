import t from 'tap'
import { FreshReads } from '../../src/infra/fresh-reads.js'

/**
 * A store whose reads the test answers by hand: each read returns the store's version at the
 * moment the read began, so a test can tell a value read after a call from one read before it.
 */
function aStore() {
  const store = {
    version: 0,
    reads: [] as { key: string; version: number; answer: () => void; fail: (err: Error) => void }[],
    read: (key: string) =>
      new Promise<number>((resolve, reject) => {
        const version = store.version
        store.reads.push({ key, version, answer: () => resolve(version), fail: reject })
      }),
  }
  return store
}

const settle = () => new Promise((r) => setImmediate(r))

t.test('given no read under way, when asked, then it reads at once', async (t) => {
  const store = aStore()
  const reads = new FreshReads<string, number>()
  const value = reads.get('a', () => store.read('a'))
  t.equal(store.reads.length, 1)
  store.reads[0]!.answer()
  t.equal(await value, 0)
})

t.test('given a read under way, when five more callers ask, then they share one read that begins after it', async (t) => {
  const store = aStore()
  const reads = new FreshReads<string, number>()
  const first = reads.get('a', () => store.read('a'))
  store.version = 1 // a write the five made before asking
  const later = Array.from({ length: 5 }, () => reads.get('a', () => store.read('a')))
  t.equal(store.reads.length, 1, 'the five do not take the read begun before them')
  store.reads[0]!.answer()
  t.equal(await first, 0)
  await settle()
  t.equal(store.reads.length, 2, 'one read for the five')
  store.reads[1]!.answer()
  t.same(await Promise.all(later), [1, 1, 1, 1, 1], 'each sees what was written before it asked')
})

t.test('given the second read under way, when another caller asks, then it waits for a third', async (t) => {
  const store = aStore()
  const reads = new FreshReads<string, number>()
  void reads.get('a', () => store.read('a'))
  const second = reads.get('a', () => store.read('a'))
  store.reads[0]!.answer()
  await settle()
  store.version = 2
  const third = reads.get('a', () => store.read('a'))
  store.reads[1]!.answer()
  t.equal(await second, 0)
  await settle()
  t.equal(store.reads.length, 3)
  store.reads[2]!.answer()
  t.equal(await third, 2)
})

t.test('given different keys, then their reads never wait for each other', async (t) => {
  const store = aStore()
  const reads = new FreshReads<string, number>()
  void reads.get('a', () => store.read('a'))
  void reads.get('b', () => store.read('b'))
  t.same(
    store.reads.map((r) => r.key),
    ['a', 'b'],
  )
})

t.test('given a read that fails, then its callers and those queued behind it get its error at once, and the next caller reads again', async (t) => {
  const store = aStore()
  const reads = new FreshReads<string, number>()
  const failing = reads.get('a', () => store.read('a'))
  const queued = reads.get('a', () => store.read('a'))
  store.reads[0]!.fail(new Error('NATS away'))
  await t.rejects(failing, /NATS away/)
  await t.rejects(queued, /NATS away/, 'no second timed-out read for the queued caller')
  t.equal(store.reads.length, 1)
  const after = reads.get('a', () => store.read('a'))
  t.equal(store.reads.length, 2, 'nothing is kept once answered')
  store.reads[1]!.answer()
  t.equal(await after, 0)
})

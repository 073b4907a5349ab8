import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Document, MongoClient, ObjectId, type Sort } from 'mongodb'
import t from 'tap'
import { startMongo } from '../../src/infra/local/servers.js'

/**
 * The embedded store sorts and counts in SQL (scripts/ferretdb/0004-*.patch, ADR 0019). Whatever it
 * pushes down must answer exactly as the same server does with every filter, sort and count done by
 * its handler (FERRETDB_TEST_DISABLE_PUSHDOWN): randomized finds and counts over documents whose
 * fields are strings that sort oddly as JSON text, ObjectIDs, numbers, dates, arrays, nulls or missing.
 */

const QUERIES = 300
const dir = await mkdtemp(join(tmpdir(), 'mats-pushdown-'))
const [pushed, handled] = await Promise.all([
  startMongo({ dataDir: join(dir, 'pushed'), database: 'pushdown' }),
  startMongo({ dataDir: join(dir, 'handled'), database: 'pushdown', env: { FERRETDB_TEST_DISABLE_PUSHDOWN: 'true' } }),
])
const clients = await Promise.all([new MongoClient(pushed.url).connect(), new MongoClient(handled.url).connect()])
t.teardown(async () => {
  await Promise.all(clients.map((client) => client.close()))
  await Promise.all([pushed.stop(), handled.stop()])
  await rm(dir, { recursive: true, force: true })
})

/** A seeded generator: a failure names its seed and replays. */
function generator(seed: number) {
  let state = seed
  const next = () => {
    state = (state * 1103515245 + 12345) % 2147483648
    return state / 2147483648
  }
  return { chance: (p: number) => next() < p, pick: <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)] as T }
}

const OID = new ObjectId('65a1b2c3d4e5f60718293a4b')
/** Strings whose JSON text sorts unlike the strings: a prefix then a space or '!', escapes, non-ASCII, a hex like OID. */
const STRINGS = ['a', 'b', 'ab', 'ab ', 'a!', 'a"q', 'a\\b', 'a<b', 'é', 'Z', '', 'x\ny', OID.toHexString(), 'ab\u0001']
const OTHERS = [OID, 1, 2.5, null, true, new Date(1e12), ['a', 'b'], ['ab'], [], { x: 1 }]

/** Documents whose sort fields are all strings ('strings': odd ones too) or of any type, or missing ('mixed'). */
function documents(random: ReturnType<typeof generator>, kind: 'plain' | 'strings' | 'mixed'): Document[] {
  const mixed = kind === 'mixed'
  return Array.from({ length: 300 }, (_, i) => {
    const doc: Document = {
      _id: mixed && i % 50 === 0 ? new ObjectId() : `id-${String(i).padStart(4, '0')}-${random.pick(STRINGS)}`,
      accountId: random.pick(['acc1', 'acc2', 'acc3']),
      status: random.pick(['queued', 'running', 'done']),
      createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i % 97)).toISOString(),
      body: 'x'.repeat(200),
    }
    for (const field of kind === 'plain' ? [] : ['accountId', 'status', 'createdAt']) {
      if (mixed && random.chance(0.1)) delete doc[field]
      else if (random.chance(0.3)) doc[field] = random.pick(mixed ? [...STRINGS, ...OTHERS] : STRINGS)
    }
    return doc
  })
}

function aQuery(random: ReturnType<typeof generator>) {
  const filter: Document = {}
  if (random.chance(0.7)) filter.accountId = random.pick<unknown>(['acc1', 'acc2', 'ab', OID, OID.toHexString(), { $eq: 'acc1' }, { $in: ['acc1', 'acc3'] }])
  if (random.chance(0.4)) filter.status = random.pick(['queued', 'done', 'ab'])
  if (random.chance(0.1)) filter._id = random.pick<unknown>(['id-0001-a', OID])
  if (random.chance(0.05)) filter.createdAt = { $gt: '2026' }
  const sort: Sort = random.pick([{ createdAt: -1, _id: -1 }, { createdAt: 1 }, { accountId: 1, createdAt: -1 }, { status: -1, _id: 1 }, { _id: -1 }])
  return { filter, sort, skip: random.pick([0, 0, 3]), limit: random.pick([0, 25, 1]) }
}

/**
 * What a sort compares of a field: an array sorts by its smallest element ascending and its
 * largest descending (the arrays here hold strings), so `['a', 'b']` ties with `'b'` descending.
 */
const sortValue = (value: unknown, direction: number) => {
  if (!Array.isArray(value) || value.length === 0 || !value.every((v) => typeof v === 'string')) return value
  return [...value].sort()[direction === 1 ? 0 : value.length - 1]
}

/** What a find answers, as far as it is defined: the sort keys in order (ties may come in any order), and the ids when all are read. */
const answer = (docs: Document[], sort: Sort, whole: boolean) => ({
  keys: docs.map((doc) => Object.entries(sort).map(([field, direction]) => sortValue(doc[field], Number(direction)))),
  ids: whole ? docs.map((doc) => String(doc._id)).sort() : [],
})

t.test('given documents of every type, when finding, sorting and counting with and without pushdown, then the answers are the same', async (t) => {
  const seed = Number(process.env.PUSHDOWN_SEED ?? Date.now() % 100_000)
  const random = generator(seed)
  const kinds = ['plain', 'strings', 'mixed'] as const
  for (const name of kinds) {
    const docs = documents(random, name)
    for (const client of clients) {
      await client
        .db()
        .collection(name)
        .insertMany(docs.map((doc) => ({ ...doc })))
      await client.db().collection(name).createIndex({ accountId: 1, createdAt: -1, _id: -1 })
    }
  }

  const differences: unknown[] = []
  let answered = 0
  for (let i = 0; i < QUERIES; i++) {
    const collection = random.pick(kinds)
    const { filter, sort, skip, limit } = aQuery(random)
    const ask = async (client: MongoClient) => {
      const docs = await client.db().collection(collection).find(filter, { sort, skip, limit }).toArray()
      const counted = await client.db().collection(collection).countDocuments(filter)
      // with a limit the driver sends $match, $skip, $limit and a counting $group (a count the store may stop early)
      const bounded = limit ? await client.db().collection(collection).countDocuments(filter, { skip, limit }) : counted
      const { n } = await client.db().command({ count: collection, query: filter, ...(skip ? { skip } : {}), ...(limit ? { limit } : {}) })
      return { ...answer(docs, sort, skip === 0 && limit === 0), counted, bounded, n }
    }
    const [found, expected] = await Promise.all([ask(clients[0]), ask(clients[1])])
    if (JSON.stringify(found) !== JSON.stringify(expected)) differences.push({ collection, filter, sort, skip, limit, found, expected })
    if (found.keys.length > 1 && found.counted > 1) answered++
  }
  t.same(differences.slice(0, 3), [], `${QUERIES} finds, countDocuments and counts answer as without pushdown (PUSHDOWN_SEED=${seed} replays)`)
  t.ok(answered > QUERIES / 4, `most queries sort and count several documents (${answered} of ${QUERIES})`)
})

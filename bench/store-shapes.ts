/**
 * The read-model shapes of mats against one MongoDB-wire server, at several collection sizes:
 * the numbers behind the choice of the server `npm start` embeds.
 *
 * For each size, in a fresh database: loads SIZE task-shaped documents (insertMany of 50, one
 * client; 1,000 documents per account), creates the two list indexes (one createIndex each),
 * checks the list queries' answers against the expected ids, then runs each operation from
 * 4 concurrent clients for WARMUP seconds uncounted and SECONDS counted: ops/s (docs/s for
 * insertMany). Writes are the projection engine's compare-and-set on `_seq`; a wrong answer
 * (a write matching nothing, a short list) is an error. Every call has a TIMEOUT_MS socket
 * timeout, reported as "timeout" ("hung" for the 500-replace bulkWrite, which wedges stock
 * FerretDB 1.24); when no write gets through for 120 s after one, the rest is skipped. A value
 * with `*` had failures, listed under the table (operations x sizes), then one JSON line.
 *
 *   MONGODB_URL=mongodb://127.0.0.1:27017/ [SIZES=1000,10000,100000] [SECONDS=3] [WARMUP=1] [TIMEOUT_MS=10000] \
 *     node --import tsx bench/store-shapes.ts
 */
import { createHash } from 'node:crypto'
import { MongoClient, type AnyBulkWriteOperation, type Collection, type MongoClientOptions } from 'mongodb'

const MONGODB_URL = process.env.MONGODB_URL
if (!MONGODB_URL) throw new Error('MONGODB_URL is required')
const SIZES = (process.env.SIZES ?? '1000,10000,100000').split(',').map(Number)
const SECONDS = Number(process.env.SECONDS ?? 3)
const WARMUP = Number(process.env.WARMUP ?? 1)
const TIMEOUT_MS = Number(process.env.TIMEOUT_MS ?? 10_000)
const CLIENTS = 4
const PER_ACCOUNT = 1000

type Task = {
  _id: string
  accountId: string
  sessionId: string
  agentType: string
  status: string
  priority: string
  title: string
  instruction: string
  result: string | null
  createdAt: string
  _seq: number
  updatedAt?: string
}

const AGENTS = ['copywriter', 'seo', 'social', 'email', 'ads', 'analytics', 'research', 'brand', 'pr', 'strategy']
const STATUSES = ['pending', 'running', 'completed', 'failed']
const PRIORITIES = ['low', 'normal', 'high']
const RESULT = `## Summary\n\n${'The brief was analysed against the brand guide and a plan drafted for review. '.repeat(6)}\n\n## Deliverables\n\n${Array.from({ length: 12 }, (_, k) => `- Item ${k + 1}: headline, body copy and a call to action, ready to review\n`).join('')}\n## Notes\n\n${'Tone follows the brand guide; every claim is sourced. '.repeat(5)}`

// Documents are a pure function of their index, so every server gets the same data and answers.
const hex = (i: number, salt: string) => createHash('sha1').update(`${salt}:${i}`).digest('hex')
const taskId = (i: number) => {
  const h = hex(i, 'task')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`
}
const accountId = (a: number) => `account-${String(a).padStart(4, '0')}`
function task(i: number, seq: number): Task {
  const r = parseInt(hex(i, 'attributes').slice(0, 8), 16)
  const status = STATUSES[r % 4]!
  const agentType = AGENTS[(r >>> 2) % 10]!
  return {
    _id: taskId(i),
    accountId: accountId(Math.floor(i / PER_ACCOUNT)),
    sessionId: `session-${Math.floor(i / 20)}`,
    agentType,
    status,
    priority: PRIORITIES[(r >>> 8) % 3]!,
    title: `Task ${i} for ${agentType} (rev ${seq})`,
    instruction: `Write ${agentType} material for campaign ${i % 97}.`.padEnd(200, ' Keep to the audience, the offer and the brand voice.'),
    result: status === 'completed' || status === 'failed' ? `# Result of task ${i}\n\n${RESULT}` : null,
    createdAt: new Date(Date.UTC(2025, 0, 1) + Math.floor(i / 3) * 60_000).toISOString(), // 3 share a createdAt: _id breaks the tie
    _seq: seq,
  }
}

// The socket timeout is the per-call timeout. A call that fails after it has timed out, whatever
// error the driver wraps that in (bulkWrite's MongoBulkWriteError keeps only the message).
const timedOut = (since: number) => performance.now() - since >= TIMEOUT_MS
const rnd = (n: number) => Math.floor(Math.random() * n)
// Set when no write gets through for 120 s after a timeout: measuring on would only time out.
let wedged = false
const options: MongoClientOptions = { socketTimeoutMS: TIMEOUT_MS, connectTimeoutMS: TIMEOUT_MS, serverSelectionTimeoutMS: TIMEOUT_MS, retryReads: false, retryWrites: false }

type Cell = { value: string; note?: string }
/** Runs `op` (which returns the units it did) from every client for WARMUP, then for SECONDS counted. A client stops at its first failure. */
async function measure(colls: Collection<Task>[], op: (c: Collection<Task>) => Promise<number>, timeoutWord = 'timeout'): Promise<Cell> {
  let units = 0
  let timeouts = 0
  const errors = new Set<string>()
  const failed = new Set<Collection<Task>>()
  const phase = async (seconds: number) => {
    const start = performance.now()
    await Promise.all(
      colls
        .filter((c) => !failed.has(c))
        .map(async (c) => {
          while (performance.now() - start < seconds * 1000) {
            const since = performance.now()
            try {
              units += await op(c)
            } catch (e) {
              failed.add(c)
              if (timedOut(since)) timeouts++
              else errors.add((e as Error).message)
              break
            }
          }
        }),
    )
    return (performance.now() - start) / 1000
  }
  await phase(WARMUP)
  units = 0
  const elapsed = await phase(SECONDS)
  const rate = units / elapsed
  const failures = [timeouts ? `${timeouts} of ${colls.length} clients timed out after ${TIMEOUT_MS} ms` : '', ...errors].filter(Boolean).join('; ')
  if (units === 0 && failures) return { value: timeouts ? timeoutWord : 'error', note: failures }
  const value = rate >= 100 ? String(Math.round(rate)) : rate.toPrecision(3)
  return failures ? { value: `${value}*`, note: failures } : { value }
}

async function runSize(size: number, setup: MongoClient, clients: MongoClient[]): Promise<Map<string, Cell>> {
  const cells = new Map<string, Cell>()
  const dbName = `store_shapes_${size}`
  let stage = 'dropDatabase'
  const staged = (e: Error): never => {
    throw new Error(`${stage}: ${e.message}`)
  }
  await setup.db(dbName).dropDatabase().catch(staged)
  const coll = setup.db(dbName).collection<Task>('tasks')
  const colls = clients.map((c) => c.db(dbName).collection<Task>('tasks'))

  let t = performance.now()
  stage = 'load'
  for (let i = 0; i < size; i += 50) await coll.insertMany(Array.from({ length: Math.min(50, size - i) }, (_, k) => task(i + k, 1))).catch(staged)
  cells.set('load: insertMany(50), 1 client  docs/s', { value: String(Math.round(size / ((performance.now() - t) / 1000))) })
  t = performance.now()
  const indexErrors: string[] = []
  const indexes: Record<string, 1 | -1>[] = [
    { accountId: 1, createdAt: -1, _id: -1 },
    { accountId: 1, status: 1, createdAt: -1, _id: -1 },
  ]
  for (const keys of indexes) {
    await coll.createIndex(keys).catch((e: Error) => indexErrors.push(`${JSON.stringify(keys)}: ${e.message}`))
  }
  cells.set('createIndex x2  s', indexErrors.length ? { value: 'error', note: indexErrors.join('; ') } : { value: ((performance.now() - t) / 1000).toFixed(2) })

  // The list queries' answers for the last account, against the same sort done here.
  const account = Array.from({ length: PER_ACCOUNT }, (_, k) => task(size - PER_ACCOUNT + k, 1))
  const newestFirst = (a: Task, b: Task) => (a.createdAt === b.createdAt ? (a._id < b._id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1)
  const expected = [account, account.filter((d) => d.status === 'failed')].map((docs) =>
    docs
      .sort(newestFirst)
      .slice(0, 25)
      .map((d) => d._id)
      .join(),
  )
  stage = 'list check'
  const got = await Promise.all(
    [{}, { status: 'failed' }].map(async (f) =>
      (
        await coll
          .find({ accountId: account[0]!.accountId, ...f })
          .sort({ createdAt: -1, _id: -1 })
          .limit(25)
          .toArray()
      )
        .map((d) => d._id)
        .join(),
    ),
  ).catch(staged)
  const wrong = got.map((g, k) => (g === expected[k] ? '' : `${k ? 'status-filtered ' : ''}list answered ${g.slice(0, 80)}..., expected ${expected[k]!.slice(0, 80)}...`)).filter(Boolean)
  cells.set('list queries return the expected 25 ids', wrong.length ? { value: 'NO', note: wrong.join('; ') } : { value: 'yes' })

  // Writes compare-and-set on `_seq`; ids in flight are claimed so two clients never race on one.
  // Ids of a timed-out write stay claimed: the server may still apply it.
  const seqs = new Int32Array(size).fill(1)
  const busy = new Set<number>()
  async function replace(c: Collection<Task>, n: number): Promise<number> {
    let picked: number[] = []
    const waiting = performance.now()
    while (picked.length < n) {
      for (const i of picked) busy.delete(i)
      if (performance.now() - waiting > TIMEOUT_MS / 2) throw new Error(`no ${n} free ids: the others are held by timed-out writes`)
      picked = []
      for (let tries = 0; picked.length < n && tries < n * 20; tries++) {
        const i = rnd(size)
        if (!busy.has(i)) {
          busy.add(i)
          picked.push(i)
        }
      }
      if (picked.length < n) await new Promise((resolve) => setTimeout(resolve, 1))
    }
    const writes = picked.map((i) => ({ filter: { _id: taskId(i), _seq: seqs[i]! }, replacement: task(i, seqs[i]! + 1) }))
    const since = performance.now()
    try {
      const matched =
        n === 1
          ? (await c.replaceOne(writes[0]!.filter, writes[0]!.replacement)).matchedCount
          : (
              await c.bulkWrite(
                writes.map((replaceOne): AnyBulkWriteOperation<Task> => ({ replaceOne })),
                { ordered: false },
              )
            ).matchedCount
      if (matched !== n) throw new Error(`replace matched ${matched} of ${n}`)
      for (const i of picked) seqs[i]! += 1
    } catch (e) {
      if (!timedOut(since)) for (const i of picked) busy.delete(i)
      throw e
    }
    for (const i of picked) busy.delete(i)
    return 1
  }
  const accounts = size / PER_ACCOUNT
  let next = size
  const expect = (ok: boolean, what: string) => {
    if (!ok) throw new Error(`wrong result: ${what}`)
  }
  const ops: [string, (c: Collection<Task>) => Promise<number>, string?][] = [
    [
      'findOne {_id}  ops/s',
      async (c) => {
        expect((await c.findOne({ _id: taskId(rnd(size)) })) !== null, 'findOne found nothing')
        return 1
      },
    ],
    [
      'find {_id: {$in: 50 ids}}  ops/s',
      async (c) => {
        const ids = [...new Set(Array.from({ length: 50 }, () => taskId(rnd(size))))]
        const n = (await c.find({ _id: { $in: ids } }).toArray()).length
        expect(n === ids.length, `$in found ${n} of ${ids.length}`)
        return 1
      },
    ],
    [
      'list: find {accountId} sort limit 25  ops/s',
      async (c) => {
        expect(
          (
            await c
              .find({ accountId: accountId(rnd(accounts)) })
              .sort({ createdAt: -1, _id: -1 })
              .limit(25)
              .toArray()
          ).length === 25,
          'list not 25',
        )
        return 1
      },
    ],
    [
      'list + status filter  ops/s',
      async (c) => {
        expect(
          (
            await c
              .find({ accountId: accountId(rnd(accounts)), status: STATUSES[rnd(4)]! })
              .sort({ createdAt: -1, _id: -1 })
              .limit(25)
              .toArray()
          ).length === 25,
          'list not 25',
        )
        return 1
      },
    ],
    [
      'countDocuments {accountId}  ops/s',
      async (c) => {
        const n = await c.countDocuments({ accountId: accountId(rnd(accounts)) })
        expect(n === PER_ACCOUNT, `count ${n}`)
        return 1
      },
    ],
    [
      'updateOne {_id} $set  ops/s',
      async (c) => {
        expect((await c.updateOne({ _id: taskId(rnd(size)) }, { $set: { priority: 'high', updatedAt: new Date().toISOString() } })).matchedCount === 1, 'updateOne matched 0')
        return 1
      },
    ],
    ['replaceOne {_id,_seq}  ops/s', (c) => replace(c, 1)],
    ['bulkWrite 50 replaceOne, unordered  ops/s', (c) => replace(c, 50)],
    [
      'insertMany(50)  docs/s',
      async (c) => {
        const from = next
        next += 50
        expect((await c.insertMany(Array.from({ length: 50 }, (_, k) => task(from + k, 1)))).insertedCount === 50, 'insertMany')
        return 50
      },
    ],
    ['bulkWrite 500 replaceOne, unordered  ops/s', (c) => replace(c, Math.min(500, size / 2)), 'hung'],
  ]
  // A timed-out call may still run on the server and hold up the next operation: wait for a write to get through.
  async function drain(): Promise<string> {
    const start = performance.now()
    while (performance.now() - start < 120_000) {
      if (
        await clients[0]!
          .db(dbName)
          .collection('drain')
          .insertOne({})
          .then(
            () => true,
            () => false,
          )
      )
        return `; a write got through ${((performance.now() - start) / 1000).toFixed(1)} s later`
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    wedged = true
    return '; no write got through in the 120 s after (wedged, or busy with the timed-out calls): the rest is skipped'
  }
  for (const [name, op, timeoutWord] of ops) {
    if (wedged) break
    process.stderr.write(`  ${size}: ${name}\n`)
    const cell = await measure(colls, op, timeoutWord)
    if (cell.note?.includes('timed out')) cell.note += await drain()
    cells.set(name, cell)
  }
  if (!wedged)
    await setup
      .db(dbName)
      .dropDatabase()
      .catch((e: Error) => process.stderr.write(`  ${size}: dropDatabase failed: ${e.message}\n`))
  return cells
}

const setup = await new MongoClient(MONGODB_URL, { ...options, socketTimeoutMS: 30 * TIMEOUT_MS }).connect()
const info = await setup.db('admin').command({ buildInfo: 1 })
const server = `${MONGODB_URL.replace(/\/\/[^@/]*@/, '//')} (version ${info.version}${info.ferretdbVersion ? `, FerretDB ${info.ferretdbVersion}` : ''})`
const clients = await Promise.all(Array.from({ length: CLIENTS }, () => new MongoClient(MONGODB_URL, { ...options, maxPoolSize: 1 }).connect()))
const results = new Map<number, Map<string, Cell>>()
for (const size of SIZES) {
  if (wedged) break
  process.stderr.write(`size ${size}\n`)
  const t = performance.now()
  results.set(size, await runSize(size, setup, clients).catch((e: Error) => new Map([['setup failed', { value: 'error', note: e.message }]])))
  process.stderr.write(`size ${size} took ${((performance.now() - t) / 1000).toFixed(0)} s\n`)
}
await Promise.all([setup, ...clients].map((c) => c.close(true)))

const rowNames = [...new Set([...results.values()].flatMap((cells) => [...cells.keys()]))]
const rows = [['operation', ...SIZES.map(String)], ...rowNames.map((name) => [name, ...SIZES.map((s) => results.get(s)?.get(name)?.value ?? '-')])]
const widths = rows[0]!.map((_, k) => Math.max(...rows.map((r) => r[k]!.length)))
console.log(`${server}, ${CLIENTS} clients, ${WARMUP} s warm-up + ${SECONDS} s per operation, ${TIMEOUT_MS} ms per-call timeout`)
for (const r of rows) console.log(r.map((v, k) => (k ? v.padStart(widths[k]!) : v.padEnd(widths[k]!))).join('  '))
const notes = SIZES.flatMap((s) => [...(results.get(s) ?? [])].filter(([, c]) => c.note).map(([name, c]) => `${s} ${name.replace(/ {2}.*/, '')}: ${c.note}`))
for (const n of notes) console.log(`* ${n}`)
console.log(
  JSON.stringify({
    server,
    clients: CLIENTS,
    warmup: WARMUP,
    seconds: SECONDS,
    timeoutMs: TIMEOUT_MS,
    results: Object.fromEntries(SIZES.map((s) => [s, Object.fromEntries([...(results.get(s) ?? [])].map(([k, c]) => [k, c.value]))])),
    notes,
  }),
)

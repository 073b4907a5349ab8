/**
 * `mats projections rebuild` at scale, alone: STORED tasks of 100 accounts put straight in
 * the log, projected, then rebuilt ROUNDS times; each rebuild against an insertMany of the same
 * final documents into collections with the read models' indexes (what storing them costs),
 * and into one collection without indexes (the bare insert).
 *
 *   npm run bench:rebuild        STORED=100000 ROUNDS=2
 */
import { randomUUID } from 'node:crypto'
import { ALL_PROJECTIONS, rebuildProjections } from '../projections/index.js'
import { insertManySeconds } from './baselines.js'
import { benchServers, benchService } from './harness.js'
import { quiesce } from './mats.js'
import { seedTasks } from './seed.js'

const STORED = Number(process.env.STORED ?? 100_000)
const ROUNDS = Number(process.env.ROUNDS ?? 2)
const PER_ACCOUNT = 1000
const say = (line: string) => process.stdout.write(`${line}\n`)

const servers = await benchServers()
const service = await benchService(servers.natsUrl, servers.mongoUrl, { RATE_LIMITS_ENABLED: 'false' }, ['api', 'projector'])
try {
  const seeding = performance.now()
  for (let n = 0; n < STORED; n += PER_ACCOUNT) await seedTasks(service.infra, randomUUID(), Math.min(PER_ACCOUNT, STORED - n))
  await quiesce(service.infra)
  say(`${STORED.toLocaleString('en-US')} tasks stored and projected in ${((performance.now() - seeding) / 1000).toFixed(0)} s`)
  const { infra } = service
  const deps = { js: infra.js, jsm: infra.jsm, link: infra.link, readModels: infra.readModels, log: infra.log }
  for (let round = 1; round <= ROUNDS; round++) {
    const started = performance.now()
    let flipped = 0
    let said = 0
    await rebuildProjections(deps, ALL_PROJECTIONS, (p) => {
      if (p.phase === 'activated') flipped = performance.now()
      if (p.phase !== 'replaying' || Date.now() - said > 5000) {
        said = Date.now()
        say(`  ${p.projection} ${p.phase} ${p.applied}/${p.last}`)
      }
    })
    const seconds = (flipped - started) / 1000
    const groups = await Promise.all(ALL_PROJECTIONS.map(async (projection) => ({ indexes: projection.indexes, docs: await infra.readModels.collection(projection).find({}).toArray() })))
    // One collection for all: ids are unique per projection only (account_spend and account_usage share theirs).
    const docs = groups.flatMap((group, g) => group.docs.map((doc) => ({ ...doc, _id: `${g}:${String(doc._id)}` })))
    const indexed = await insertManySeconds(servers.mongoUrl, groups)
    const bare = await insertManySeconds(servers.mongoUrl, [{ indexes: [], docs }])
    say(
      `round ${round}: rebuild to the last flip ${seconds.toFixed(1)} s; insertMany of the ${docs.length.toLocaleString('en-US')} final documents with the read models' indexes ${indexed.toFixed(1)} s (ratio ${(seconds / indexed).toFixed(2)}, goal ≤ 2), without indexes ${bare.toFixed(1)} s (ratio ${(seconds / bare).toFixed(2)})`,
    )
  }
} finally {
  await service.stop()
  await servers.stop()
}

/**
 * GET /v1/tasks/{taskId} with the rate limiter on, as a ratio to the limiter off, in the
 * same run against the same servers (goal: at least 0.8). A bare fastify route doing the
 * same findOne is measured too, as the floor of what the endpoint could cost.
 *
 *   npm run bench              (ROUNDS=3 SECONDS=5 CONNECTIONS=10 by default)
 */
import Fastify from 'fastify'
import { MongoClient } from 'mongodb'
import { tasksProjection } from '../projections/index.js'
import { collectionName } from '../projections/engine/read-models.js'
import { benchServers, benchService, median, requestsPerSecond } from './harness.js'
import { createAccount } from '../src/commands/create-account/create-account.js'
import { createApiKey } from '../src/commands/create-api-key/create-api-key.js'
import { operator } from '../src/commands/execute.js'

const ROUNDS = Number(process.env.ROUNDS ?? 3)
const SECONDS = Number(process.env.SECONDS ?? 5)
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 10)
// High enough that every request is admitted: this measures the limiter's cost, not its refusals.
const LIMITS = { RATE_LIMIT_TASKS_READ_PER_MIN: '100000000', RATE_LIMIT_SESSIONS_PER_MIN: '100000000', RATE_LIMIT_TASKS_CREATE_PER_MIN: '100000000' }

const servers = await benchServers()
const limited = await benchService(servers.natsUrl, servers.mongoUrl, { ...LIMITS, RATE_LIMITS_ENABLED: 'true' })
const unlimited = await benchService(servers.natsUrl, servers.mongoUrl, { RATE_LIMITS_ENABLED: 'false' }, ['api'])

const account = await createAccount(limited.infra, { name: 'bench' }, operator())
const { key } = await createApiKey(limited.infra, { accountId: account.id, name: 'bench' }, operator())
const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' }
const session = (await (await fetch(`${limited.url}/v1/sessions`, { method: 'POST', headers, body: JSON.stringify({ name: 'bench' }) })).json()) as { session: { id: string } }
const created = (await (await fetch(`${limited.url}/v1/tasks`, { method: 'POST', headers, body: JSON.stringify({ sessionId: session.session.id, instruction: 'Benchmark task' }) })).json()) as {
  task: { id: string }
}
const taskId = created.task.id

// The floor: a bare fastify route doing the same findOne on the same collection.
const mongo = await new MongoClient(servers.mongoUrl).connect()
const tasks = mongo.db().collection<{ _id: string }>(collectionName(tasksProjection, 1))
const bare = Fastify()
bare.get('/tasks/:id', async (request) => ({ task: await tasks.findOne({ _id: (request.params as { id: string }).id }) }))
const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' })

const runs = { off: [] as number[], on: [] as number[], bare: [] as number[] }
for (let round = 1; round <= ROUNDS; round++) {
  runs.off.push(await requestsPerSecond(`${unlimited.url}/v1/tasks/${taskId}`, headers, SECONDS, CONNECTIONS))
  runs.on.push(await requestsPerSecond(`${limited.url}/v1/tasks/${taskId}`, headers, SECONDS, CONNECTIONS))
  runs.bare.push(await requestsPerSecond(`${bareUrl}/tasks/${taskId}`, {}, SECONDS, CONNECTIONS))
  process.stdout.write(`round ${round}: limiter off ${runs.off.at(-1)!.toFixed(0)} req/s, on ${runs.on.at(-1)!.toFixed(0)} req/s, bare fastify ${runs.bare.at(-1)!.toFixed(0)} req/s\n`)
}
const [off, on, floor] = [median(runs.off), median(runs.on), median(runs.bare)]
process.stdout.write(`
GET /v1/tasks/{taskId}, median of ${ROUNDS} × ${SECONDS} s, ${CONNECTIONS} connections, ${process.env.MONGODB_BENCH_NOTE ?? 'FerretDB/SQLite where no mongod'}
  limiter off          ${off.toFixed(0)} req/s
  limiter on           ${on.toFixed(0)} req/s
  ratio on/off         ${(on / off).toFixed(2)}   (goal ≥ 0.80) ${on / off >= 0.8 ? 'met' : 'NOT met'}
  bare fastify+findOne ${floor.toFixed(0)} req/s   (ours, limiter on, is ${(on / floor).toFixed(2)} of it)
`)
await bare.close()
await mongo.close()
await Promise.all([limited.stop(), unlimited.stop()])
await servers.stop()

import { randomUUID } from 'node:crypto'
import t from 'tap'
import { BatchApplier } from '../../projections/engine/apply.js'
import type { ReadModels } from '../../projections/engine/read-models.js'
import { taskCountsProjection, type TaskCountsDoc } from '../../projections/index.js'
import type { TaskStatus } from '../../src/domain/tasks/task.js'
import { streamEvents } from '../helpers/event-log.js'
import { aKey, anAccount } from '../helpers/mothers.js'
import { ApiClient } from '../helpers/http.js'
import { collectOutput, exited, spawnMats } from '../helpers/processes.js'
import { catchUp, readModelsIn } from '../helpers/read-models.js'
import { otherDatabase, startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'
import { appendTasks, mixedTask, mixedTaskDrafts } from '../helpers/task-mix.js'
import { until } from '../helpers/wait.js'

/**
 * The counts by status (task_counts, one document per account moved by each transition) stay
 * exact however the log is applied: replayed, rewound, cut mid-batch, by a projector killed and
 * restarted, and through a rebuild (ADR 0043). Any double-applied transition would show here.
 */
const servers = await startServers(t)
// No worker: seeded tasks keep the status their history gives them.
const service = await startTestService(t, servers, { roles: ['api', 'projector'] })
const { infra } = service

type Counts = Record<TaskStatus, number>
const TASKS = [900, 150]
const accounts = await Promise.all(TASKS.map(() => anAccount(infra)))
const expected: Record<string, Counts> = {}
for (const [k, account] of accounts.entries()) {
  const sessions = [randomUUID(), randomUUID()]
  // Few at a time: a test shares the machine, and a batch slot not free in time fails the append.
  await appendTasks(infra, account.id, TASKS[k]!, (i) => mixedTaskDrafts(i, sessions), 8)
  const counts: Counts = { pending: 0, running: 0, completed: 0, failed: 0 }
  for (let i = 0; i < TASKS[k]!; i++) counts[mixedTask(i, sessions).status]++
  expected[account.id] = counts
}
const tasksLast = (await infra.jsm.streams.info('MATS_TASKS')).state.last_seq

async function countsIn(readModels: ReadModels): Promise<Record<string, Counts>> {
  await readModels.refresh()
  const docs = await readModels.collection<TaskCountsDoc>(taskCountsProjection).find({}).toArray()
  return Object.fromEntries(docs.map(({ _id, pending, running, completed, failed }) => [_id, { pending, running, completed, failed }]))
}

const rewind = (readModels: ReadModels) => readModels.db.collection('projection_checkpoints').deleteMany({ _id: { $regex: `^${taskCountsProjection.name}@1(#|$)` } as never })

t.test('given a log of task histories, when it is replayed twice and again after a rewind in batches of 97, then the counts equal the statuses', async (t) => {
  const readModels = await readModelsIn(infra, 'counts_replayed')
  await catchUp(infra, readModels)
  t.same(await countsIn(readModels), expected, 'one pass')
  await catchUp(infra, readModels)
  await rewind(readModels)
  t.equal(await readModels.checkpoint(taskCountsProjection, 1), 0, 'rewound')
  await catchUp(infra, readModels, 97)
  t.same(await countsIn(readModels), expected, 'every transition counted once')
})

t.test('given a batch cut after part of it was written and before its checkpoint moved, when the projection resumes, then nothing is counted twice', async (t) => {
  const readModels = await readModelsIn(infra, 'counts_crashed')
  const events = await streamEvents(infra, 'MATS_TASKS')
  // The first 1,000 events of the batch were written (for both accounts), then the process died.
  await new BatchApplier(readModels.collection(taskCountsProjection), taskCountsProjection).apply(events.slice(0, 1000))
  t.equal(await readModels.checkpoint(taskCountsProjection, 1), 0, 'the checkpoint did not move')
  await catchUp(infra, readModels, 250)
  t.same(await countsIn(readModels), expected)
})

t.test('given a projector killed with SIGKILL part-way through the task log, when another starts, then the counts are exact', async (t) => {
  const database = 'counts_killed_projector'
  const env = { NATS_URL: servers.natsUrl, MONGODB_URL: otherDatabase(servers, database) }
  const readModels = await readModelsIn(infra, database)
  const progress = () => readModels.checkpoint(taskCountsProjection, 1)
  const first = spawnMats(t, ['start', '--role', 'projector'], env)
  const at = await until(
    'the projector to be part-way through the task log',
    async () => {
      const seq = await progress()
      return seq > 0 && seq < tasksLast ? seq : undefined
    },
    120_000,
    5,
  )
  first.kill('SIGKILL')
  await exited(first)
  t.ok(at < tasksLast, `killed at checkpoint ${at} of ${tasksLast}`)
  const second = spawnMats(t, ['start', '--role', 'projector'], env)
  await until('the restarted projector to catch up', async () => (await progress()) >= tasksLast || undefined, 120_000)
  second.kill('SIGTERM')
  await exited(second)
  t.same(await countsIn(readModels), expected)
})

t.test('given the live counts, when mats projections rebuild replays every read model into a new generation, then GET /v1/tasks/counts answers the same exact counts', async (t) => {
  const callers = await Promise.all(accounts.map(async (account) => new ApiClient(service.url, (await aKey(infra, account.id)).key)))
  const answered = async () => Promise.all(callers.map(async (api) => (await api.get<{ counts: Counts & { total: number } }>('/v1/tasks/counts')).body.counts))
  const wanted = accounts.map((account) => {
    const counts = expected[account.id]!
    return { ...counts, total: counts.pending + counts.running + counts.completed + counts.failed }
  })
  t.same(await answered(), wanted, 'live, before')
  const rebuild = spawnMats(t, ['projections', 'rebuild', '--json'], { NATS_URL: servers.natsUrl, MONGODB_URL: servers.mongoUrl })
  const output = collectOutput(rebuild)
  t.equal(await exited(rebuild), 0, `rebuild exits 0: ${output.text()}`)
  await until(
    'the API to read the new generation',
    async () => {
      await infra.readModels.refresh()
      return infra.readModels.generationOf(taskCountsProjection) > 1 || undefined
    },
    30_000,
  )
  t.same(await answered(), wanted, 'after the flip')
})

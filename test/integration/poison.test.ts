import { randomUUID } from 'node:crypto'
import t from 'tap'
import { ProjectionRunner } from '../../projections/index.js'
import { accountSpendProjection, sessionsProjection, tasksProjection, type Projection } from '../../projections/index.js'
import type { AppContext } from '../../src/app-context.js'
import { PoisonMessages } from '../../src/infra/mongo/poison-messages.js'
import { accountDispatchConsumer, dispatchMessagesOf } from '../helpers/dispatch.js'
import { aCaller, aSessionBody } from '../helpers/mothers.js'
import { collectOutput, exited, spawnMats } from '../helpers/processes.js'
import { readModelsIn } from '../helpers/read-models.js'
import { otherDatabase, startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'
import { until as untilWithin } from '../helpers/wait.js'
import { webhookEnv, type CreatedWebhook } from '../helpers/webhooks.js'
import { startWebhookReceiver } from '../fakes/webhook-receiver.js'

/** Under a full suite on two cores, a term by the worker and two projections' passes can take past the default 10 s. */
const until = <T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false) => untilWithin(what, check, 30_000)

const servers = await startServers(t)
const service = await startTestService(t, servers, { env: webhookEnv({ OFFLINE_AGENT_LATENCY_MS: '50' }) })
const { infra } = service
const env = { NATS_URL: servers.natsUrl, MONGODB_URL: servers.mongoUrl }
const { api, account } = await aCaller(infra, service.url)
const sessionId = (await api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
// A webhook for every task event of the account: the fan-out meets every message of the task stream.
const receiver = await startWebhookReceiver(t)
await api.post<CreatedWebhook>('/v1/webhooks', { url: receiver.url })
const deliveredTypes = () => receiver.received.map((r) => JSON.parse(r.body) as { type: string; data: { task: { id: string } } })

interface TaskReply {
  task: { id: string; status: string }
}
interface Status {
  projections: { projection: string; state: string; checkpoint: number; stopped: { seq: number; type: string; error: string }[] }[]
  poisonMessages: { count: number; latest: { seq: number; subject: string; reason: string; seenBy: string[] }[] }
}

/** Stores `data` on `subject` as any NATS client could, bypassing the service. */
async function publishRaw(infra: AppContext, subject: string, data: string): Promise<number> {
  return (await infra.js.publish(subject, data)).seq
}

/** A well-formed TaskStarted for a task that was never created: the tasks projection's evolve throws on it. */
function startedWithoutCreated(accountId: string, taskId: string): string {
  return JSON.stringify({
    id: randomUUID(),
    type: 'TaskStarted',
    version: 1,
    occurredAt: new Date().toISOString(),
    accountId,
    aggregateId: taskId,
    data: { workerId: 'nobody' },
    metadata: { correlationId: randomUUID(), causationId: null, keyId: null },
  })
}

const checkpointOf = (projection: Projection) => infra.readModels.checkpoint(projection, infra.readModels.generationOf(projection))

async function projectionsStatus(): Promise<Status> {
  const child = spawnMats(t, ['projections', 'status', '--json'], env)
  const output = collectOutput(child)
  if ((await exited(child)) !== 0) throw new Error(`mats projections status failed: ${output.text()}`)
  return JSON.parse(output.text()) as Status
}

const garbageSubject = `mats.task.${account.id}.${randomUUID()}.TaskCreated`
const garbageSeq = await publishRaw(infra, garbageSubject, '{"type": "TaskCreated", not json')

t.test('given invalid JSON stored as a TaskCreated, then the worker terminates it and every consumer records it once, by name', async (t) => {
  const info = await until('the worker to settle the message for good', async () => {
    const consumer = await accountDispatchConsumer(infra, account.id)
    return consumer !== null && consumer.delivered.stream_seq > 0 && consumer.ack_floor.stream_seq >= consumer.delivered.stream_seq ? consumer : undefined
  })
  t.equal(info.num_ack_pending, 0, 'nothing left pending: it is not redelivered')
  t.equal(info.delivered.consumer_seq, 1, 'terminated at its first delivery')
  // A work queue: the dispatch copy of the message goes once the worker terminates it.
  await until('the message to be gone from the dispatch stream', async () => (await dispatchMessagesOf(infra, account.id)) === 0)
  const poison = new PoisonMessages(infra.db, infra.log)
  const consumers = ['projection:account_spend', 'projection:tasks', 'webhooks:fan-out', 'worker']
  const [recorded] = await until('the worker and the projections to record it', async () => {
    const latest = await poison.latest(10)
    return consumers.every((name) => latest[0]?.seenBy.includes(name)) ? latest : undefined
  })
  t.match(recorded, { stream: 'MATS_TASKS', seq: garbageSeq, subject: garbageSubject, reason: /^not JSON/ })
  t.equal(await poison.count(), 1, 'counted once, whoever met it')

  const after = await api.post<TaskReply>('/v1/tasks', { sessionId, instruction: 'A task after the poison message', waitSeconds: 30 })
  t.equal(after.body.task.status, 'completed', 'the worker goes on with the next task')
  await until('the tasks projection to pass the poison message', async () => (await checkpointOf(tasksProjection)) > garbageSeq)
})

t.test('given a decodable event the tasks projection cannot apply, then that projection stops there, visibly, and the others go on', async (t) => {
  const neverCreated = randomUUID()
  const badSeq = await publishRaw(infra, `mats.task.${account.id}.${neverCreated}.TaskStarted`, startedWithoutCreated(account.id, neverCreated))

  await until('the stop to be recorded', async () => {
    await infra.readModels.refresh()
    return infra.readModels.stoppedOf(tasksProjection).length > 0
  })
  const [stopped] = infra.readModels.stoppedOf(tasksProjection)
  t.match(stopped, { seq: badSeq, type: 'TaskStarted', error: /TaskStarted before TaskCreated/ })

  const ready = await until('/readyz to report it', async () => {
    const res = await fetch(`${service.url}/readyz`, { signal: AbortSignal.timeout(1000) })
    return res.status === 503 ? ((await res.json()) as { error: string }) : undefined
  })
  t.match(ready.error, new RegExp(`^not ready: projection tasks stopped at MATS_TASKS sequence ${badSeq} \\(TaskStarted\\): TaskStarted before TaskCreated`))

  // Later good events: a task that runs to its end, and a session.
  const later = await api.post<TaskReply>('/v1/tasks', { sessionId, instruction: 'A task after the bad event', waitSeconds: 30 })
  t.equal(later.body.task.status, 'completed')
  await api.post('/v1/sessions', aSessionBody({ name: 'After the bad event' }))
  const last = (await infra.jsm.streams.info('MATS_TASKS')).state.last_seq
  await until('account_spend to apply the later task', async () => (await checkpointOf(accountSpendProjection)) >= last)
  const spend = await infra.readModels.collection<{ _id: string; tasksFinished: number }>(accountSpendProjection).findOne({ accountId: account.id })
  t.equal(spend?.tasksFinished, 2, 'account_spend counts both tasks that ended')
  const sessionsLast = (await infra.jsm.streams.info('MATS_SESSIONS')).state.last_seq
  await until('sessions to apply the later session', async () => (await checkpointOf(sessionsProjection)) >= sessionsLast)

  t.ok((await checkpointOf(tasksProjection)) < badSeq, 'tasks did not skip the event it cannot apply')
  const metrics = await (await fetch(`${service.url}/metrics`)).text()
  const lag = (name: string, projection: string) => Number(metrics.match(new RegExp(`^mats_projection_lag_${name}\\{projection="${projection}"[^}]*\\} (\\S+)$`, 'm'))?.[1])
  t.ok(lag('events', 'tasks') >= last - badSeq + 1 && lag('seconds', 'tasks') > 0, `the stopped projection's lag shows in /metrics: ${lag('events', 'tasks')} events, ${lag('seconds', 'tasks')} s`)
  t.equal(lag('events', 'account_spend'), 0, 'the others are caught up')
  await infra.readModels.refresh()
  t.same(
    infra.readModels.stoppedOf(tasksProjection).map((s) => s.at),
    [stopped!.at],
    'stopped once: not retried while the others went on (no spin)',
  )

  const givenUp = await until('the webhooks fan-out to give the event up after its attempts', async () => (await new PoisonMessages(infra.db, infra.log).latest(10)).find((m) => m.seq === badSeq))
  t.match(givenUp, { seenBy: ['webhooks:fan-out'], reason: /^given up after 5 attempts: .*TaskStarted before TaskCreated/ }, 'counted as poison by the consumer that gave it up')
  await until('the later task to reach the webhook: the bad event held nothing up', () => deliveredTypes().some((d) => d.type === 'task.completed' && d.data.task.id === later.body.task.id))

  const status = await projectionsStatus()
  const tasks = status.projections.find((p) => p.projection === 'tasks')
  t.match(tasks, { state: 'stopped', stopped: [{ seq: badSeq, type: 'TaskStarted', error: /TaskStarted before TaskCreated/ }] })
  t.same(
    status.projections.filter((p) => p.state !== 'running').map((p) => p.projection),
    ['tasks'],
    'the other projections run',
  )
  t.match(status.poisonMessages, { count: 2, latest: [{ seq: badSeq }, { seq: garbageSeq, subject: garbageSubject, reason: /^not JSON/ }] })
})

t.test('given the stopped projection, a rebuild fails on the same event and says so, instead of spinning', async (t) => {
  const child = spawnMats(t, ['projections', 'rebuild'], { ...env, MONGODB_URL: otherDatabase(servers, 'rebuild_stops') })
  const output = collectOutput(child)
  t.not(await exited(child), 0)
  t.match(output.text(), /projection tasks cannot apply event \d+ \(TaskStarted/)
})

t.test('given a stopped projection, when it is fixed and runs again, it passes the event and its stop is cleared', async (t) => {
  const readModels = await readModelsIn(infra, 'fixed_later')
  const deps = { js: infra.js, jsm: infra.jsm, link: infra.link, readModels, log: infra.log }
  const broken = new ProjectionRunner(deps, tasksProjection)
  const running = broken.run()
  await until('the stop', () => readModels.stoppedOf(tasksProjection)[0])
  broken.stop()
  await running

  // The fix: this version of the projection ignores TaskStarted.
  const fixed = new ProjectionRunner(deps, { ...tasksProjection, canHandle: tasksProjection.canHandle.filter((type) => type !== 'TaskStarted') })
  const resumed = fixed.run()
  const last = (await infra.jsm.streams.info('MATS_TASKS')).state.last_seq
  await until('the fixed projection to catch up', async () => (await readModels.checkpoint(tasksProjection, 1)) >= last)
  await until('the stop to be cleared', async () => {
    await readModels.refresh()
    return readModels.stoppedOf(tasksProjection).length === 0
  })
  fixed.stop()
  await resumed
  t.equal(await readModels.collection(tasksProjection).countDocuments(), 2, 'both real tasks projected')
})

t.test('given three consumers meeting the same poison messages at the same moment, then each message is counted once and names all three', async (t) => {
  const db = infra.mongo.db('poison_race')
  const consumers = ['worker', 'projection:tasks', 'projection:account_spend']
  const messages = Array.from({ length: 30 }, (_, i) => ({ stream: 'MATS_TASKS', seq: i + 1, subject: `mats.task.a.${i}.TaskCreated`, reason: 'not JSON' }))
  for (const message of messages) await Promise.all(consumers.map((consumer) => new PoisonMessages(db, infra.log).record(message, consumer)))
  const poison = new PoisonMessages(db, infra.log)
  t.equal(await poison.count(), 30)
  const latest = await poison.latest(30)
  t.equal(latest.length, 30)
  t.same(
    latest.filter((m) => [...m.seenBy].sort().join() !== [...consumers].sort().join()).map((m) => m.seq),
    [],
    'no sighting lost',
  )
  await poison.record(messages[0]!, 'worker')
  t.equal(await poison.count(), 30, 'met again on a replay: still one message')
})

t.test('given a poison document written before one document per sighting, then it is still counted and listed with who met it', async (t) => {
  const db = infra.mongo.db('poison_earlier')
  const earlier = { _id: 'MATS_TASKS#7', stream: 'MATS_TASKS', seq: 7, subject: 'mats.task.a.b.TaskCreated', reason: 'not JSON', firstSeenAt: new Date(1000), seenBy: ['worker', 'projection:tasks'] }
  await db.collection<{ _id: string }>('poison_messages').insertOne(earlier)
  const poison = new PoisonMessages(db, infra.log)
  await poison.record({ stream: 'MATS_TASKS', seq: 9, subject: 'mats.task.a.c.TaskCreated', reason: 'not JSON' }, 'worker')
  t.equal(await poison.count(), 2)
  t.match(await poison.latest(5), [
    { seq: 9, seenBy: ['worker'] },
    { seq: 7, seenBy: ['worker', 'projection:tasks'] },
  ])
})

import t, { type Test } from 'tap'
import { JOBS_STREAM } from '../../src/infra/nats/webhook-streams.js'
import { startWebhookReceiver } from '../fakes/webhook-receiver.js'
import { aCaller, aSessionBody, type Caller } from '../helpers/mothers.js'
import { startServers, type TestServers } from '../helpers/servers.js'
import { startTestService, type TestService } from '../helpers/service.js'
import { aTaskThatIs } from '../helpers/task-histories.js'
import { until } from '../helpers/wait.js'
import { verified, webhookEnv, type CreatedWebhook } from '../helpers/webhooks.js'
import type { AppContext } from '../../src/app-context.js'
import { fanOutEvents } from '../../consumers/webhooks/fan-out.js'
import { FAN_OUT_PAGE } from '../../consumers/webhooks/fan-out-lane.js'
import { FanOutCursors } from '../../src/infra/nats/fan-out-cursors.js'
import { LogReader } from '../../src/infra/nats/log-reader.js'
import { WebhookQueue } from '../../src/infra/nats/webhook-queue.js'

// Issue 18 / invariant 12: the fan-out (task events to delivery jobs) is shared fairly across
// accounts: a deep backlog of one account's events delays only that account. ADR 0042.
t.setTimeout(600_000)

const NOISY_WEBHOOKS = 20
/** Each a whole history (created, started, completed): three events to fan out to every webhook. */
const NOISY_TASKS = Number(process.env.NOISY_TASKS ?? 400)
const EVENTS_PER_TASK = 3
const QUIET_DEADLINE_MS = Number(process.env.QUIET_DEADLINE_MS ?? 20_000)

const aSession = async (caller: Caller) => (await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
const jobsQueued = async (infra: AppContext) => (await infra.jsm.streams.info(JOBS_STREAM)).state.messages

/** The account's jobs per (webhook, task) queue, from the stream's per-subject counts. */
async function jobsPerQueue(infra: AppContext, accountId: string): Promise<Record<string, number>> {
  return (await infra.jsm.streams.info(JOBS_STREAM, { subjects_filter: `mats_webhooks.job.${accountId}.>` })).state.subjects ?? {}
}

/**
 * A noisy account with 20 webhooks (all at an endpoint that refuses, retried only a minute
 * later: its deliveries stay queued) and `tasks` whole task histories appended while no
 * webhooks process runs: a backlog of tasks × 3 events × 20 webhooks to fan out.
 */
async function aNoisyBacklog(t: Test, servers: TestServers, env: Record<string, string>, tasks: number): Promise<{ api: TestService; noisy: Caller; webhooks: string[] }> {
  // A long NATS timeout for the seeding: thousands of appends on a loaded machine, not what is measured.
  const api = await startTestService(t, servers, { roles: ['api', 'projector'], env: { ...env, NATS_TIMEOUT_MS: '15000' } })
  const noisy = await aCaller(api.infra, api.url)
  const refusing = await startWebhookReceiver(t, () => 503)
  const webhooks: string[] = []
  for (let i = 0; i < NOISY_WEBHOOKS; i++) webhooks.push((await noisy.api.post<CreatedWebhook>('/v1/webhooks', { url: `${refusing.url}?hook=${i}` })).body.webhook.id)
  const session = await aSession(noisy)
  const seeding = Date.now()
  for (let i = 0; i < tasks; i += 16) {
    await Promise.all(Array.from({ length: Math.min(16, tasks - i) }, (_, j) => aTaskThatIs(api.infra, noisy.account.id, session, 'completed', `Noisy brief ${i + j}`)))
  }
  t.comment(`appended ${tasks} noisy task histories (${tasks * EVENTS_PER_TASK} events × ${NOISY_WEBHOOKS} webhooks to fan out) in ${Date.now() - seeding} ms`)
  return { api, noisy, webhooks }
}

/** Every (webhook, task) queue of the noisy account holds its three jobs, once each, in the log's order (read with the seeding service's long NATS timeout: thousands of subjects). */
async function checkEveryJobOnceInOrder(t: Test, infra: AppContext, noisy: Caller, tasks: number, since: number): Promise<void> {
  const expected = tasks * NOISY_WEBHOOKS * EVENTS_PER_TASK
  await until('every noisy job to be queued', async () => Object.values(await jobsPerQueue(infra, noisy.account.id)).reduce((a, b) => a + b, 0) >= expected, 300_000, 500)
  t.comment(`all ${expected} noisy jobs queued ${Date.now() - since} ms after the (first) webhooks process started`)
  const queues = await jobsPerQueue(infra, noisy.account.id)
  const counts = Object.values(queues)
  t.equal(counts.length, tasks * NOISY_WEBHOOKS, 'a queue per (webhook, task)')
  t.same(
    counts.filter((n) => n !== EVENTS_PER_TASK),
    [],
    'each holds exactly its three jobs: none lost, none twice',
  )
  // The order of a sample of queues, spread over the webhooks (reading all of them would take long): created, started, completed.
  const sample = Object.keys(queues).filter((_, i) => i % Math.max(1, Math.floor(counts.length / 60)) === 0)
  const outOfOrder: string[] = []
  for (const subject of sample) {
    const batch = await infra.jsm.direct.getBatch(JOBS_STREAM, { seq: 1, next_by_subj: subject, batch: 10 })
    const events: string[] = []
    for await (const msg of batch) events.push((JSON.parse(msg.string()) as { event: string }).event)
    if (events.join() !== 'task.created,task.started,task.completed') outOfOrder.push(`${subject}: ${events.join()}`)
  }
  t.same(outOfOrder, [], `${sample.length} queues sampled: each task's jobs in the log's order`)
}

t.test("a noisy account's deep backlog of task events to fan out does not hold back a quiet account's delivery", async (t) => {
  const servers = await startServers(t)
  const env = webhookEnv({ WEBHOOKS_RETRY_BASE_MS: '60000' })
  // Given a noisy account's backlog of task events, appended while no webhooks process ran
  const { api, noisy } = await aNoisyBacklog(t, servers, env, NOISY_TASKS)
  const expected = NOISY_TASKS * NOISY_WEBHOOKS * EVENTS_PER_TASK
  const quiet = await aCaller(api.infra, api.url)
  const prompt = await startWebhookReceiver(t)
  const { secret } = (await quiet.api.post<CreatedWebhook>('/v1/webhooks', { url: prompt.url, events: ['task.created'] })).body
  const quietSession = await aSession(quiet)

  // When a webhooks process starts on the backlog and the quiet account creates a task
  const starting = Date.now()
  await startTestService(t, servers, { roles: ['api', 'webhooks'], env })
  await until('the fan-out to be under way', async () => (await jobsQueued(api.infra)) >= NOISY_WEBHOOKS, 60_000, 50)
  await quiet.api.post('/v1/tasks', { sessionId: quietSession, instruction: 'Quiet brief' })

  // Then its delivery arrives within 5 s, while the noisy backlog is still being fanned out
  const delivered = await until('the quiet delivery', () => prompt.received[0], QUIET_DEADLINE_MS)
  const queuedThen = await jobsQueued(api.infra)
  const lateMs = delivered.at - Date.parse(verified(secret, delivered).timestamp)
  t.comment(`quiet delivery ${lateMs} ms after its append, with ${queuedThen} of the noisy account's ${expected} jobs fanned out`)
  t.ok(lateMs <= 5000, `the quiet delivery arrived within 5 s of its append (${lateMs} ms)`)
  t.ok(queuedThen < expected, `the noisy backlog was still being fanned out (${queuedThen} of ${expected} jobs)`)

  // And the noisy account's jobs are all queued, once each, in order
  await checkEveryJobOnceInOrder(t, api.infra, noisy, NOISY_TASKS, starting)
})

t.test('a webhooks process stopped mid-fan-out: the next one goes on from where it was, nothing lost, nothing twice, in order', async (t) => {
  const servers = await startServers(t)
  const env = webhookEnv({ WEBHOOKS_RETRY_BASE_MS: '60000' })
  const tasks = 100
  const { api, noisy } = await aNoisyBacklog(t, servers, env, tasks)

  // Given a webhooks process stopped part-way through the backlog
  const starting = Date.now()
  const first = await startTestService(t, servers, { roles: ['api', 'webhooks'], env })
  await until('part of the backlog to be fanned out', async () => (await jobsQueued(api.infra)) >= 1000, 120_000, 20)
  await first.stop()
  const stoppedAt = await jobsQueued(api.infra)
  t.comment(`stopped with ${stoppedAt} of ${tasks * NOISY_WEBHOOKS * EVENTS_PER_TASK} jobs queued`)
  t.ok(stoppedAt < tasks * NOISY_WEBHOOKS * EVENTS_PER_TASK, 'stopped before the end')

  // When another starts
  await startTestService(t, servers, { roles: ['api', 'webhooks'], env })

  // Then every job is queued once, in order
  await checkEveryJobOnceInOrder(t, api.infra, noisy, tasks, starting)
})

t.test("a claim left by a process that died mid-page, after storing part of the page's jobs: taken over once it runs out, nothing stored twice", async (t) => {
  const servers = await startServers(t)
  const env = webhookEnv({ WEBHOOKS_RETRY_BASE_MS: '60000' })
  const tasks = 30
  const { api, noisy } = await aNoisyBacklog(t, servers, env, tasks)
  const cursors = await FanOutCursors.open(api.infra.js, { replicas: 1 })
  const cursor = await cursors.get(noisy.account.id)
  if (!cursor) throw new Error('registering a webhook made no fan-out cursor')

  // Given a process that claimed the account, stored the jobs of its first page, and died before moving the cursor on
  const page = await new LogReader(api.infra).readPage('MATS_TASKS', `mats.*.${noisy.account.id}.>`, cursor.seq + 1, FAN_OUT_PAGE)
  const queue = await WebhookQueue.open(api.infra, { replicas: 1 })
  await fanOutEvents(api.infra, queue, noisy.account.id, page.events)
  const claimMs = 6000
  const held = await cursors.write(noisy.account.id, cursor, { seq: cursor.seq, holder: 'a-process-that-died', until: Date.now() + claimMs })
  t.ok(held, 'the dead process holds the claim')
  const diedAt = Date.now()
  t.equal(await jobsQueued(api.infra), page.events.length * NOISY_WEBHOOKS, "the first page's jobs are stored")

  // When a webhooks process starts
  const starting = Date.now()
  await startTestService(t, servers, { roles: ['api', 'webhooks'], env })

  // Then it waits for the claim to run out, then fans out everything, the first page's jobs not twice
  await until('more than the first page to be fanned out', async () => (await jobsQueued(api.infra)) > page.events.length * NOISY_WEBHOOKS, 60_000, 20)
  t.ok(Date.now() - diedAt >= claimMs, `nothing more was fanned out before the claim ran out (${Date.now() - diedAt} ms)`)
  await checkEveryJobOnceInOrder(t, api.infra, noisy, tasks, starting)
})

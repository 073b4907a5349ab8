import t from 'tap'
import type { DeliveryJob } from '../../consumers/webhooks/job.js'
import { WebhookQueue } from '../../src/infra/nats/webhook-queue.js'
import { JOBS_STREAM } from '../../src/infra/nats/webhook-streams.js'
import { startWebhookReceiver } from '../fakes/webhook-receiver.js'
import { aCaller, aSessionBody, type Caller } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'
import { until } from '../helpers/wait.js'
import { verified, webhookEnv, type CreatedWebhook } from '../helpers/webhooks.js'

// Issue 18 / invariant 12: a deep backlog (thousands of queued jobs, not only slow attempts
// in flight) delays only its own account. ADR 0033.
t.setTimeout(400_000)

const NOISY_WEBHOOKS = 20
const NOISY_TASKS = 250
const ORDERED_TASKS = 20
const EVENTS_PER_TASK = 5
const QUIET_TASKS = 5

const aSession = async (caller: Caller) => (await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
const registered = async (caller: Caller, url: string) => (await caller.api.post<CreatedWebhook>('/v1/webhooks', { url })).body.webhook.id

/** Queues jobs as the fan-out does, `atOnce` at a time, in the order given (so each task's jobs queue in order). */
async function enqueueAll(queue: WebhookQueue, jobs: DeliveryJob[], atOnce = 200): Promise<void> {
  for (let i = 0; i < jobs.length; i += atOnce) {
    await Promise.all(jobs.slice(i, i + atOnce).map((job) => queue.enqueue(job, JSON.stringify(job), `${job.messageId}.${job.webhookId}`)))
  }
}

const aJob = (accountId: string, webhookId: string, taskId: string, messageId: string, step: number): DeliveryJob => ({
  accountId,
  webhookId,
  taskId,
  messageId,
  event: 'task.created',
  body: JSON.stringify({ type: 'task.created', timestamp: new Date().toISOString(), data: { task: { id: taskId, step } } }),
})

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN

t.test(
  "a noisy account with 5,000 jobs queued to slow and refusing endpoints does not hold back a quiet account's deliveries, across two webhooks processes; each task's deliveries stay in order",
  async (t) => {
    const servers = await startServers(t)
    const env = webhookEnv({ WEBHOOKS_TIMEOUT_MS: '1000', WEBHOOKS_CONCURRENCY: '8', WEBHOOKS_MAX_IN_FLIGHT_PER_ACCOUNT: '4', WEBHOOKS_MAX_IN_FLIGHT_PER_WEBHOOK: '2' })
    const service = await startTestService(t, servers, { env })
    await startTestService(t, servers, { roles: ['api', 'webhooks'], env })
    const [noisy, ordered, quiet] = [await aCaller(service.infra, service.url), await aCaller(service.infra, service.url), await aCaller(service.infra, service.url)]
    const slow = await startWebhookReceiver(
      t,
      () => 204,
      () => 60_000,
    )
    const refusing = await startWebhookReceiver(t, () => 503)
    // Answers 500 to the first attempt of each delivery (by its webhook-id), 204 to the next: every delivery is retried once.
    const seen = new Set<string>()
    const flaky = await startWebhookReceiver(t, (_, headers) => {
      const firstAttempt = !seen.has(headers['webhook-id'] ?? '')
      seen.add(headers['webhook-id'] ?? '')
      return firstAttempt ? 500 : 204
    })
    const prompt = await startWebhookReceiver(t)

    // Given a noisy account with 20 webhooks (half at an endpoint that never answers in time, half at one answering 503) and 250 tasks each: 5,000 jobs
    const noisyHooks = await Promise.all(Array.from({ length: NOISY_WEBHOOKS }, (_, i) => registered(noisy, `${i % 2 ? refusing.url : slow.url}?hook=${i}`)))
    const queue = await WebhookQueue.open(service.infra, { replicas: 1 })
    const noise = noisyHooks.flatMap((hookId) => Array.from({ length: NOISY_TASKS }, (_, task) => aJob(noisy.account.id, hookId, `noisy-task-${task}`, `noisy-${hookId}-${task}`, 0)))
    // and an account whose receiver fails every delivery once, with 5 events for each of 20 tasks, queued interleaved across tasks
    const flakyHook = await registered(ordered, flaky.url)
    const steps = Array.from({ length: EVENTS_PER_TASK }, (_, step) => step).flatMap((step) =>
      Array.from({ length: ORDERED_TASKS }, (_, task) => aJob(ordered.account.id, flakyHook, `ordered-task-${task}`, `ordered-${task}-${step}`, step)),
    )
    const queuing = Date.now()
    await enqueueAll(queue, [...noise, ...steps])
    t.comment(`queued ${noise.length + steps.length} jobs in ${Date.now() - queuing} ms`)
    await until('the noise to fill its slots', () => slow.received.length + refusing.received.length >= 8, 60_000)

    // When the quiet account's tasks are created, one after another, while the backlog is still deep
    const { secret } = (await quiet.api.post<CreatedWebhook>('/v1/webhooks', { url: prompt.url, events: ['task.created'] })).body
    const quietSession = await aSession(quiet)
    const lateness: number[] = []
    for (let i = 0; i < QUIET_TASKS; i++) {
      const backlog = (await service.infra.jsm.streams.info(JOBS_STREAM)).state.messages
      await quiet.api.post('/v1/tasks', { sessionId: quietSession, instruction: `Quiet brief ${i}` })
      const delivered = await until(`quiet delivery ${i}`, () => prompt.received[i], 30_000)
      lateness.push(delivered.at - Date.parse(verified(secret, delivered).timestamp))
      t.comment(`quiet delivery ${i}: ${lateness[i]} ms after its append, with ${backlog} jobs queued`)
    }

    // Then every quiet delivery arrived within 5 s, with thousands of noisy jobs still queued
    const sorted = [...lateness].sort((a, b) => a - b)
    const left = (await service.infra.jsm.streams.info(JOBS_STREAM)).state.messages
    t.comment(
      `quiet deliveries after their append (ms): p50 ${percentile(sorted, 50)}, max ${sorted.at(-1)}; noisy attempts so far: ${slow.received.length} slow (at most ${slow.mostAtOnce()} at once), ${refusing.received.length} refused; ${left} jobs still queued`,
    )
    t.ok((sorted.at(-1) ?? Number.POSITIVE_INFINITY) <= 5000, `every quiet delivery within 5 s (${lateness.join(', ')} ms)`)
    t.ok(left >= 4000, `the noisy backlog was still deep when the quiet deliveries arrived (${left} jobs)`)
    t.ok(slow.mostAtOnce() <= 4, `the noisy account never had more than its 4 attempts open at the slow endpoint (${slow.mostAtOnce()})`)

    // And each ordered task's deliveries arrived in order, every one retried once with the same webhook-id
    await until('every ordered delivery', () => flaky.received.filter((r) => r.status === 204).length >= ORDERED_TASKS * EVENTS_PER_TASK, 120_000)
    const stepOf = (body: string) => (JSON.parse(body) as { data: { task: { step: number } } }).data.task.step
    const twiceEach = Array.from({ length: EVENTS_PER_TASK }, (_, step) => [step, step]).flat()
    for (let task = 0; task < ORDERED_TASKS; task++) {
      const mine = flaky.received.filter((r) => r.body.includes(`"ordered-task-${task}"`)).map((r) => stepOf(r.body))
      t.same(mine, twiceEach, `task ${task}: each event twice (refused, then delivered), in order`)
    }
  },
)

t.test("a webhook's tasks waiting for their retries do not hold back its other tasks' first attempts, past a page of jobs", async (t) => {
  const servers = await startServers(t)
  // Retries a minute apart: the failed tasks' heads stay where they are, waiting, for the whole test.
  const service = await startTestService(t, servers, { env: webhookEnv({ WEBHOOKS_RETRY_BASE_MS: '60000' }) })
  const caller = await aCaller(service.infra, service.url)
  const receiver = await startWebhookReceiver(t, (_, headers) => ((headers['webhook-id'] ?? '').startsWith('failing-') ? 500 : 204))
  const hookId = await registered(caller, receiver.url)
  const queue = await WebhookQueue.open(service.infra, { replicas: 1 })

  // Given 300 tasks whose deliveries fail, queued before one whose delivery succeeds
  const failing = Array.from({ length: 300 }, (_, i) => aJob(caller.account.id, hookId, `failing-task-${i}`, `failing-${i}`, 0))
  await enqueueAll(queue, [...failing, aJob(caller.account.id, hookId, 'later-task', 'later-0', 0)])

  // Then
  // 13 s on a quiet machine, 28 s at load 17, past 60 s at load 22; held back behind the
  // retries (a minute apart, every one refused) it would never come, whatever the deadline.
  const delivered = await until('the later task delivered', () => receiver.received.find((r) => r.status === 204), 180_000)
  const failedFirst = receiver.received.filter((r) => r.status === 500).length
  t.comment(`the later task was delivered after ${failedFirst} failed first attempts of the tasks before it`)
  t.ok(delivered.body.includes('later-task'), 'the task behind 300 waiting ones was attempted')
})

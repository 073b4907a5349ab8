import { AckPolicy, DeliverPolicy } from '@nats-io/jetstream'
import t from 'tap'
import type { DeliveryJob } from '../../consumers/webhooks/job.js'
import { Kvm } from '@nats-io/kv'
import { WEBHOOK_SOURCE_EVENTS } from '../../src/domain/webhooks/webhook.js'
import { FanOutCursors } from '../../src/infra/nats/fan-out-cursors.js'
import { eventTypeSubjects } from '../../src/infra/nats/subjects.js'
import { JOBS_STREAM, LEGACY_DELIVERY_CONSUMER, LEGACY_FAN_OUT_CONSUMER } from '../../src/infra/nats/webhook-streams.js'
import { startWebhookReceiver } from '../fakes/webhook-receiver.js'
import { aCaller, aSessionBody } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'
import { until } from '../helpers/wait.js'
import { verified, webhookEnv, type CreatedWebhook } from '../helpers/webhooks.js'

// ADR 0033: jobs queued by an earlier version (no account in their subject, one consumer for
// every account) are delivered after the upgrade, in order, and the old consumer is gone.

t.test('jobs queued in the old format before an upgrade are moved to their account and delivered in order; the old consumer is deleted', async (t) => {
  const servers = await startServers(t)
  const env = webhookEnv()
  // Given a webhook registered while no webhooks process runs, and jobs queued as an earlier version did
  const api = await startTestService(t, servers, { roles: ['api'], env })
  const caller = await aCaller(api.infra, api.url)
  const receiver = await startWebhookReceiver(t)
  const { webhook, secret } = (await caller.api.post<CreatedWebhook>('/v1/webhooks', { url: receiver.url })).body
  await api.infra.jsm.consumers.add(JOBS_STREAM, { durable_name: LEGACY_DELIVERY_CONSUMER, ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All })
  const legacyJob = (taskId: string, step: number): DeliveryJob => ({
    webhookId: webhook.id,
    accountId: caller.account.id,
    taskId,
    messageId: `${taskId}-${step}`,
    event: 'task.created',
    body: JSON.stringify({ type: 'task.created', timestamp: new Date().toISOString(), data: { task: { id: taskId, step } } }),
  })
  const jobs = [legacyJob('task-a', 0), legacyJob('task-b', 0), legacyJob('task-a', 1), legacyJob('task-a', 2)]
  for (const job of jobs) await api.infra.js.publish(`mats_webhooks.job.${job.webhookId}.${job.taskId}`, JSON.stringify(job), { msgID: `${job.messageId}.${job.webhookId}` })

  // When the new version's webhooks role starts
  await startTestService(t, servers, { roles: ['api', 'webhooks'], env })

  // Then every job is delivered, task-a's in order, and nothing of the old format is left
  await until('the four deliveries', () => receiver.received.length >= 4, 30_000)
  const delivered = receiver.received.map((request) => verified<{ data: { task: { id: string; step: number } } }>(secret, request).data.task)
  t.same(
    delivered.filter((task) => task.id === 'task-a').map((task) => task.step),
    [0, 1, 2],
    "task-a's deliveries in order",
  )
  t.equal(delivered.filter((task) => task.id === 'task-b').length, 1, 'task-b delivered')
  await until('the jobs to leave the stream', async () => (await api.infra.jsm.streams.info(JOBS_STREAM)).state.messages === 0, 10_000)
  await t.rejects(api.infra.jsm.consumers.info(JOBS_STREAM, LEGACY_DELIVERY_CONSUMER), 'the old consumer is deleted')
})

t.test('the one fan-out consumer of earlier versions hands over to cursors per account: the fan-out goes on from where it had got to, and the consumer is deleted (ADR 0042)', async (t) => {
  const servers = await startServers(t)
  const env = webhookEnv()
  // Given a webhook registered while no webhooks process runs, under an earlier version: no cursor, but the consumer
  const api = await startTestService(t, servers, { roles: ['api'], env })
  const caller = await aCaller(api.infra, api.url)
  const receiver = await startWebhookReceiver(t)
  const { secret } = (await caller.api.post<CreatedWebhook>('/v1/webhooks', { url: receiver.url, events: ['task.created'] })).body
  await (await new Kvm(api.infra.js).open('mats_webhook_fan_out')).purge(caller.account.id)
  const sessionId = (await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
  const taskId = async (instruction: string) => (await caller.api.post<{ task: { id: string } }>('/v1/tasks', { sessionId, instruction })).body.task.id
  // a task the earlier version had fanned out already (stored before its consumer's position), and one it had not
  const alreadyFannedOut = await taskId('Fanned out before the upgrade')
  await api.infra.jsm.consumers.add('MATS_TASKS', {
    durable_name: LEGACY_FAN_OUT_CONSUMER,
    filter_subjects: WEBHOOK_SOURCE_EVENTS.map(([category, type]) => eventTypeSubjects(category, type)),
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.New,
    max_ack_pending: 1,
  })
  const waiting = await taskId('Waiting for the fan-out')

  // When the new version's webhooks role starts
  await startTestService(t, servers, { roles: ['api', 'webhooks'], env })

  // Then the waiting task is delivered, the one fanned out before is not again, and the consumer is gone
  const delivered = await until('the waiting task delivered', () => receiver.received[0], 30_000)
  t.equal(verified(secret, delivered).data.task.id, waiting)
  await until('the jobs to leave the stream', async () => (await api.infra.jsm.streams.info(JOBS_STREAM)).state.messages === 0, 10_000)
  t.same(
    receiver.received.map((request) => verified(secret, request).data.task.id).filter((id) => id === alreadyFannedOut),
    [],
    'the task fanned out before the upgrade is not delivered again',
  )
  await t.rejects(api.infra.jsm.consumers.info('MATS_TASKS', LEGACY_FAN_OUT_CONSUMER), 'the old consumer is deleted')
  t.ok(await (await FanOutCursors.open(api.infra.js, { replicas: 1 })).get(caller.account.id), 'the account has its cursor')
})

t.test('an account with a webhook whose fan-out cursor was lost (the KV bucket emptied) gets one at start, and its next task events are delivered', async (t) => {
  const servers = await startServers(t)
  const env = webhookEnv()
  // Given a webhook registered, and its account's cursor lost
  const api = await startTestService(t, servers, { roles: ['api'], env })
  const caller = await aCaller(api.infra, api.url)
  const receiver = await startWebhookReceiver(t)
  const { secret } = (await caller.api.post<CreatedWebhook>('/v1/webhooks', { url: receiver.url, events: ['task.created'] })).body
  await (await new Kvm(api.infra.js).open('mats_webhook_fan_out')).purge(caller.account.id)

  // When a webhooks process starts, and the account creates a task
  await startTestService(t, servers, { roles: ['api', 'webhooks'], env })
  const sessionId = (await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
  const { task } = (await caller.api.post<{ task: { id: string } }>('/v1/tasks', { sessionId, instruction: 'After the loss' })).body

  // Then the account has a cursor again and the task is delivered
  const delivered = await until('the task delivered', () => receiver.received[0], 30_000)
  t.equal(verified(secret, delivered).data.task.id, task.id)
  t.ok(await (await FanOutCursors.open(api.infra.js, { replicas: 1 })).get(caller.account.id), 'the account has its cursor')
})

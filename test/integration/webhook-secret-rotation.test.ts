import { createMatsClient } from '@mats/client'
import t from 'tap'
import { rotateWebhookSecret } from '../../src/commands/rotate-webhook-secret/rotate-webhook-secret.js'
import { SecretBox } from '../../src/infra/crypto/secret-box.js'
import { streamEvents } from '../helpers/event-log.js'
import { aCaller, aSessionBody, type Caller } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'
import { until } from '../helpers/wait.js'
import { verified, webhookEnv, type CreatedWebhook } from '../helpers/webhooks.js'
import { startWebhookReceiver, type Received } from '../fakes/webhook-receiver.js'

const DAY_MS = 86_400_000

/** A task in a fresh session; its id, to find its delivery. */
async function aTask(caller: Caller): Promise<string> {
  const sessionId = (await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
  return (await caller.api.post<{ task: { id: string } }>('/v1/tasks', { sessionId, instruction: 'Plan the launch' })).body.task.id
}

const deliveryOf = (received: Received[], taskId: string) => until(`the delivery of task ${taskId}`, () => received.find((r) => r.body.includes(taskId)), 20_000)
const signatureCount = (request: Received) => request.headers['webhook-signature']?.split(' ').length

t.test('a rotated secret is answered once; for 24 h deliveries verify with the old or the new secret, then only with the newest', async (t) => {
  const servers = await startServers(t)
  const service = await startTestService(t, servers, { env: webhookEnv() })
  const [owner, stranger] = [await aCaller(service.infra, service.url), await aCaller(service.infra, service.url)]
  const receiver = await startWebhookReceiver(t)
  const created = (await owner.api.post<CreatedWebhook>('/v1/webhooks', { url: receiver.url, events: ['task.created'] })).body

  // When (through the typed client, as a caller would)
  const mats = createMatsClient({ baseUrl: service.url, apiKey: owner.key.key })
  const answer = await mats.POST('/webhooks/{webhookId}/rotate-secret', { params: { path: { webhookId: created.webhook.id } } })

  // Then
  t.equal(answer.response.status, 200)
  const rotated = answer.data
  if (!rotated) throw new Error(`rotate-secret answered ${answer.response.status}`)
  t.same(rotated.webhook, created.webhook)
  t.match(rotated.secret, /^whsec_[A-Za-z0-9+/]{43}=$/)
  t.not(rotated.secret, created.secret, 'a new secret')
  const validFor = Date.parse(rotated.previousSecretValidUntil) - Date.now()
  t.ok(validFor > DAY_MS - 60_000 && validFor <= DAY_MS, `the old secret signs for 24 h more (${validFor} ms)`)
  const foreign = await createMatsClient({ baseUrl: service.url, apiKey: stranger.key.key }).POST('/webhooks/{webhookId}/rotate-secret', { params: { path: { webhookId: created.webhook.id } } })
  t.same([foreign.response.status, foreign.error], [404, { error: 'webhook not found', code: 'not_found' }], "another account's webhook is not found")
  t.equal((await owner.api.request('POST', '/v1/webhooks/not-a-uuid/rotate-secret')).status, 400)
  t.equal((await owner.api.request('POST', '/v1/webhooks/00000000-0000-4000-8000-000000000000/rotate-secret')).status, 404)

  const first = await deliveryOf(receiver.received, await aTask(owner))
  t.equal(signatureCount(first), 2, 'two signatures')
  t.equal(verified(rotated.secret, first).type, 'task.created', 'a receiver holding the new secret verifies')
  t.equal(verified(created.secret, first).type, 'task.created', 'a receiver still holding the old secret verifies')
  const log = JSON.stringify(await streamEvents(service.infra, 'MATS_WEBHOOKS'))
  t.ok(log.includes('"WebhookSecretRotated"'))
  t.notOk(log.includes(rotated.secret.slice('whsec_'.length)), 'the new secret never rests in the log in plain text')

  // When the webhook is rotated again, recorded as if 25 h ago: the secret it replaces stopped signing an hour ago
  const box = SecretBox.fromConfig(service.infra.config)
  if (!box) throw new Error('the test service has a WEBHOOKS_SECRET_KEY')
  const lateInfra = { ...service.infra, clock: () => new Date(Date.now() - DAY_MS - 3_600_000) }
  const third = await rotateWebhookSecret(lateInfra, box, { accountId: owner.account.id, webhookId: created.webhook.id }, { correlationId: 'test', keyId: null, receivedAt: null })

  // Then
  const later = await deliveryOf(receiver.received, await aTask(owner))
  t.equal(signatureCount(later), 1, 'one signature')
  t.equal(verified(third.secret, later).type, 'task.created', 'the newest secret verifies')
  t.throws(() => verified(rotated.secret, later), 'the secret it replaced, past its 24 h, does not')
  t.throws(() => verified(created.secret, later), 'nor the first one')
})

t.test('with WEBHOOKS_PREVIOUS_SECRETS_KEPT=2, two rotations leave three secrets signing; a third drops the first at once', async (t) => {
  const servers = await startServers(t)
  const service = await startTestService(t, servers, { env: webhookEnv({ WEBHOOKS_PREVIOUS_SECRETS_KEPT: '2' }) })
  const owner = await aCaller(service.infra, service.url)
  const receiver = await startWebhookReceiver(t)
  const created = (await owner.api.post<CreatedWebhook>('/v1/webhooks', { url: receiver.url, events: ['task.created'] })).body
  const rotate = async () => (await owner.api.post<{ secret: string }>(`/v1/webhooks/${created.webhook.id}/rotate-secret`, {})).body.secret

  // When rotated twice
  const [second, third] = [await rotate(), await rotate()]

  // Then a delivery carries three signatures, each verifying with one of the three secrets
  const delivered = await deliveryOf(receiver.received, await aTask(owner))
  t.equal(signatureCount(delivered), 3, 'three signatures')
  for (const [name, secret] of [
    ['the newest', third],
    ['the one before', second],
    ['the first', created.secret],
  ] as const)
    t.equal(verified(secret, delivered).type, 'task.created', `${name} verifies`)

  // When rotated a third time: only two replaced secrets are kept
  const fourth = await rotate()
  const later = await deliveryOf(receiver.received, await aTask(owner))
  t.equal(signatureCount(later), 3, 'still three signatures')
  t.equal(verified(fourth, later).type, 'task.created', 'the newest verifies')
  t.equal(verified(second, later).type, 'task.created', 'the oldest kept verifies')
  t.throws(() => verified(created.secret, later), 'the first no longer does')
})

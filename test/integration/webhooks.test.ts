import t from 'tap'
import type { TaskView } from '../helpers/language-models.js'
import { aCaller, aSessionBody, type Caller } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'
import { until } from '../helpers/wait.js'
import { verified, webhookEnv, type CreatedWebhook } from '../helpers/webhooks.js'
import { streamEvents } from '../helpers/event-log.js'
import { startWebhookReceiver } from '../fakes/webhook-receiver.js'
import { ApiClient } from '../helpers/http.js'

interface Delivery {
  webhookMessageId: string
  event: string
  taskId: string
  attempt: number
  statusCode: number | null
  error: string | null
  willRetry: boolean
}

const aSession = async (caller: Caller) => (await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
const deliveriesOf = async (caller: Caller, webhookId: string) => (await caller.api.get<{ deliveries: Delivery[] }>(`/v1/webhooks/${webhookId}/deliveries`)).body.deliveries

t.test("a task's events reach a webhook in order, signed so that the standardwebhooks library verifies them", async (t) => {
  const servers = await startServers(t)
  const service = await startTestService(t, servers, { env: webhookEnv() })
  const caller = await aCaller(service.infra, service.url)
  const receiver = await startWebhookReceiver(t)

  // Given
  const created = await caller.api.post<CreatedWebhook>('/v1/webhooks', { url: receiver.url })
  t.equal(created.status, 201)
  t.match(created.body.secret, /^whsec_[A-Za-z0-9+/]{43}=$/, 'a Standard Webhooks secret, shown once')
  t.same(created.body.webhook.events, ['task.created', 'task.started', 'task.completed', 'task.failed'], 'all four events by default')
  const listed = await caller.api.get<{ webhooks: Record<string, unknown>[] }>('/v1/webhooks')
  t.same(listed.body.webhooks, [created.body.webhook], 'listed at once, without its secret')

  // When
  const task = (await caller.api.post<{ task: TaskView }>('/v1/tasks', { sessionId: await aSession(caller), instruction: 'Plan the launch', waitSeconds: 20 })).body.task

  // Then
  await until('three deliveries', () => receiver.received.length >= 3)
  const payloads = receiver.received.map((request) => verified(created.body.secret, request))
  t.same(
    payloads.map((p) => p.type),
    ['task.created', 'task.started', 'task.completed'],
    'in the order of the log',
  )
  t.same(
    payloads.map((p) => p.data.task.status),
    ['pending', 'running', 'completed'],
    'each with the task as it was at that event',
  )
  t.same(payloads[2]?.data.task, (await caller.api.get<{ task: TaskView }>(`/v1/tasks/${task.id}`)).body.task, 'the task exactly as GET /v1/tasks/{id} shows it')
  const tampered = { ...receiver.received[0]!, body: receiver.received[0]!.body.replace('pending', 'completed') }
  t.throws(() => verified(created.body.secret, tampered), 'a changed body does not verify')
  const log = JSON.stringify(await streamEvents(service.infra, 'MATS_WEBHOOKS'))
  t.notOk(log.includes(created.body.secret.slice('whsec_'.length)), 'the secret never rests in the log in plain text')
})

t.test("a delivery answered 500 is retried with the same webhook-id and growing waits, holding back the task's later events; attempts are listed newest first", async (t) => {
  const servers = await startServers(t)
  const service = await startTestService(t, servers, { env: webhookEnv({ WEBHOOKS_RETRY_BASE_MS: '300' }) })
  const caller = await aCaller(service.infra, service.url)
  const receiver = await startWebhookReceiver(t, (n) => (n < 3 ? 500 : 204))
  const { webhook, secret } = (await caller.api.post<CreatedWebhook>('/v1/webhooks', { url: receiver.url })).body

  // When
  const task = (await caller.api.post<{ task: TaskView }>('/v1/tasks', { sessionId: await aSession(caller), instruction: 'Plan the launch', waitSeconds: 20 })).body.task

  // Then
  await until('all deliveries', () => receiver.received.length >= 6, 20_000)
  const types = receiver.received.map((request) => verified(secret, request).type)
  t.same(types, ['task.created', 'task.created', 'task.created', 'task.created', 'task.started', 'task.completed'], 'later events wait until the first is delivered')
  const ids = new Set(receiver.received.slice(0, 4).map((r) => r.headers['webhook-id']))
  t.equal(ids.size, 1, 'one webhook-id on every attempt')
  const [first, second, third, fourth] = receiver.received.map((r) => r.at)
  const waits = [second! - first!, third! - second!, fourth! - third!]
  // Wait k is at least 3/4 of 300 * 2^k (jitter takes at most a quarter off); a busy machine
  // only adds to a wait, so the bounds hold under load where comparing two measured waits did not.
  const floors = [225, 450, 900]
  t.ok(
    waits.every((wait, k) => wait >= floors[k]!),
    `each wait at least its growing floor (${waits.join(', ')} ms against ${floors.join(', ')})`,
  )

  const deliveries = await until('every attempt listed', async () => {
    const list = await deliveriesOf(caller, webhook.id)
    return list.length >= 6 && list
  })
  t.same(
    deliveries.map((d) => [d.event, d.attempt, d.statusCode, d.willRetry]),
    [
      ['task.completed', 1, 204, false],
      ['task.started', 1, 204, false],
      ['task.created', 4, 204, false],
      ['task.created', 3, 500, true],
      ['task.created', 2, 500, true],
      ['task.created', 1, 500, true],
    ],
    'newest first, with status and attempt',
  )
  t.ok(deliveries.every((d) => d.taskId === task.id))
})

t.test('a receiver that does not answer within WEBHOOKS_TIMEOUT_MS gets the same delivery again, with the same webhook-id', async (t) => {
  const servers = await startServers(t)
  const service = await startTestService(t, servers, { env: webhookEnv({ WEBHOOKS_TIMEOUT_MS: '300', WEBHOOKS_RETRY_BASE_MS: '200' }) })
  const caller = await aCaller(service.infra, service.url)
  const receiver = await startWebhookReceiver(
    t,
    () => 204,
    (n) => (n === 0 ? 5_000 : 0),
  )
  const { webhook, secret } = (await caller.api.post<CreatedWebhook>('/v1/webhooks', { url: receiver.url, events: ['task.created'] })).body

  // When
  await caller.api.post('/v1/tasks', { sessionId: await aSession(caller), instruction: 'Plan the launch' })

  // Then
  await until('the retry after the timeout', () => receiver.received.length >= 2, 20_000)
  const [slow, retry] = receiver.received
  t.equal(slow!.headers['webhook-id'], retry!.headers['webhook-id'], 'the same webhook-id')
  t.equal(verified(secret, retry!).type, 'task.created')
  const deliveries = await until('both attempts listed', async () => {
    const list = await deliveriesOf(caller, webhook.id)
    return list.length >= 2 && list
  })
  t.match(
    deliveries.map((d) => [d.attempt, d.statusCode, d.willRetry]),
    [
      [2, 204, false],
      [1, null, true],
    ],
    'newest first: the timed-out attempt has no status and is retried',
  )
  t.equal(deliveries[1]?.error, 'no answer within 300 ms', 'the timed-out attempt says why')
})

t.test('loopback and private URLs are refused at registration, and again at delivery time', async (t) => {
  const servers = await startServers(t)
  const key = webhookEnv().WEBHOOKS_SECRET_KEY
  const strict = await startTestService(t, servers, { roles: ['api', 'projector', 'webhooks'], env: webhookEnv({ WEBHOOKS_SECRET_KEY: key, WEBHOOKS_ALLOW_PRIVATE_URLS: 'false' }) })
  const caller = await aCaller(strict.infra, strict.url)

  for (const url of [
    'http://127.0.0.1:8080/hook',
    'https://localhost/hook',
    'https://10.1.2.3/hook',
    'http://[::1]/hook',
    'http://169.254.169.254/latest',
    'http://[::ffff:192.168.0.1]/',
    'http://[::127.0.0.1]/',
    'http://[2002:7f00:1::1]/',
  ]) {
    const refused = await caller.api.post<{ error: string }>('/v1/webhooks', { url })
    t.equal(refused.status, 400, url)
    t.match(refused.body.error, /^body\.url: .*(not a public address|an address that is not public|does not resolve)/, `${url}: ${refused.body.error}`)
    if (url.includes('localhost')) t.notMatch(refused.body.error, /127\.0\.0\.1|::1/, 'what localhost resolved to is not echoed')
  }
  const wrongScheme = await caller.api.post<{ error: string }>('/v1/webhooks', { url: 'ftp://example.com/hook' })
  t.same([wrongScheme.status, wrongScheme.body.error], [400, 'body.url: must be an http:// or https:// URL'])
  t.same((await caller.api.get<{ webhooks: unknown[] }>('/v1/webhooks')).body.webhooks, [], 'nothing was registered')

  // Given a webhook registered through a process that allows loopback (as if its DNS answer changed since)
  const lenient = await startTestService(t, servers, { roles: ['api'], env: webhookEnv({ WEBHOOKS_SECRET_KEY: key }) })
  const receiver = await startWebhookReceiver(t)
  const { webhook } = (await new ApiClient(lenient.url, caller.key.key).post<CreatedWebhook>('/v1/webhooks', { url: receiver.url })).body
  // When a task event is fanned out by the strict webhooks process
  await caller.api.post('/v1/tasks', { sessionId: await aSession(caller), instruction: 'Plan the launch' })
  // Then the attempt is refused before any connection
  const refused = await until('a refused attempt', async () => (await deliveriesOf(caller, webhook.id))[0])
  t.same([refused.statusCode, refused.willRetry], [null, true])
  t.match(refused.error, /^127\.0\.0\.1 is not a public address/)
  t.equal(receiver.received.length, 0, 'the receiver heard nothing')
})

t.test('deleting a webhook stops its deliveries, retries included', async (t) => {
  const servers = await startServers(t)
  const service = await startTestService(t, servers, { env: webhookEnv({ WEBHOOKS_RETRY_BASE_MS: '100' }) })
  const caller = await aCaller(service.infra, service.url)
  const sessionId = await aSession(caller)
  const failing = await startWebhookReceiver(t, () => 503)
  const healthy = await startWebhookReceiver(t)
  const doomed = (await caller.api.post<CreatedWebhook>('/v1/webhooks', { url: failing.url, events: ['task.created'] })).body.webhook
  await caller.api.post('/v1/tasks', { sessionId, instruction: 'First brief' })
  await until('a retry under way', () => failing.received.length >= 2)

  // When
  const deleted = await caller.api.request('DELETE', `/v1/webhooks/${doomed.id}`)

  // Then
  t.equal(deleted.status, 204)
  t.same((await caller.api.get<{ webhooks: unknown[] }>('/v1/webhooks')).body.webhooks, [], 'no longer listed')
  await until('its job to leave the queue', async () => (await service.infra.jsm.streams.info('MATS_WEBHOOK_JOBS')).state.messages === 0)
  const heardBefore = failing.received.length
  const other = (await caller.api.post<CreatedWebhook>('/v1/webhooks', { url: healthy.url, events: ['task.created'] })).body.webhook
  const second = (await caller.api.post<{ task: TaskView }>('/v1/tasks', { sessionId, instruction: 'Second brief' })).body.task
  await until('the other webhook to hear of the second task', () => healthy.received.some((r) => r.body.includes(second.id)))
  t.equal(failing.received.length, heardBefore, 'the deleted webhook heard nothing more, neither a retry nor the second task')
  t.equal((await caller.api.request<{ error: string }>('DELETE', `/v1/webhooks/${doomed.id}`)).status, 404, 'deleting again: 404')
  t.equal((await caller.api.get(`/v1/webhooks/${doomed.id}/deliveries`)).status, 404, 'a deleted webhook has no deliveries to show')
  t.equal((await caller.api.get(`/v1/webhooks/${other.id}/deliveries`)).status, 200)
})

t.test("another account's webhook is not found; bodies are validated field by field; without a key webhooks are off", async (t) => {
  const servers = await startServers(t)
  const service = await startTestService(t, servers, { roles: ['api', 'projector'], env: webhookEnv() })
  const [owner, stranger] = [await aCaller(service.infra, service.url), await aCaller(service.infra, service.url)]
  const { webhook } = (await owner.api.post<CreatedWebhook>('/v1/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['task.failed', 'task.completed'] })).body
  t.same(webhook.events, ['task.completed', 'task.failed'], 'events as chosen, in a stable order')

  t.same(await statusAndBody(stranger.api.request('DELETE', `/v1/webhooks/${webhook.id}`)), [404, { error: 'webhook not found', code: 'not_found' }])
  t.same(await statusAndBody(stranger.api.get(`/v1/webhooks/${webhook.id}/deliveries`)), [404, { error: 'webhook not found', code: 'not_found' }])
  t.same((await stranger.api.get<{ webhooks: unknown[] }>('/v1/webhooks')).body.webhooks, [], "the stranger's list is empty")
  t.same(await statusAndBody(owner.api.get('/v1/webhooks/not-a-uuid/deliveries')), [400, { error: 'params.webhookId: must match format "uuid"', code: 'invalid_request' }])

  const invalid: [unknown, RegExp][] = [
    [{}, /^body\.url: is required/],
    [{ url: 'http://127.0.0.1:9/', events: ['task.nope'] }, /^body\.events\.0: /],
    [{ url: 'http://127.0.0.1:9/', events: [] }, /^body\.events: /],
    [{ url: 'http://127.0.0.1:9/', secret: 'mine' }, /^body\.secret: is not a known field/],
    [{ url: 'https://user:pw@example.com/' }, /^body\.url: must not carry a user name or password/],
    [{ url: 42 }, /^body\.url: /],
  ]
  for (const [body, error] of invalid) {
    const answer = await owner.api.post<{ error: string }>('/v1/webhooks', body)
    t.equal(answer.status, 400, JSON.stringify(body))
    t.match(answer.body.error, error)
  }

  const keyless = await startTestService(t, servers, { roles: ['api'] })
  const off = await new ApiClient(keyless.url, owner.key.key).post<{ error: string }>('/v1/webhooks', { url: 'https://example.com/hook' })
  t.equal(off.status, 503)
  t.match(off.body.error, /WEBHOOKS_SECRET_KEY/)
  const rotateOff = await new ApiClient(keyless.url, owner.key.key).request<{ code: string }>('POST', `/v1/webhooks/${webhook.id}/rotate-secret`)
  t.same([rotateOff.status, rotateOff.body.code], [503, 'webhooks_disabled'], 'nor can a secret be rotated')
})

async function statusAndBody(answer: Promise<{ status: number; body: unknown }>): Promise<[number, unknown]> {
  const { status, body } = await answer
  return [status, body]
}

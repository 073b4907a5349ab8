import t, { type Test } from 'tap'
import type { RecordedEvent } from '../../src/domain/message.js'
import { SecretBox } from '../../src/infra/crypto/secret-box.js'
import { streamEvents } from '../helpers/event-log.js'
import { ApiClient } from '../helpers/http.js'
import { aCaller, aSessionBody } from '../helpers/mothers.js'
import { collectOutput, exited, spawnMats } from '../helpers/processes.js'
import { startServers, type TestServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'
import { until } from '../helpers/wait.js'
import { aSecretKey, verified, webhookEnv, type CreatedWebhook } from '../helpers/webhooks.js'
import { startWebhookReceiver, type Received } from '../fakes/webhook-receiver.js'

interface ResealReport {
  webhooks: number
  resealed: number
  failed: { webhookId: string; error: string }[]
}

async function aTask(api: ApiClient): Promise<string> {
  const sessionId = (await api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
  return (await api.post<{ task: { id: string } }>('/v1/tasks', { sessionId, instruction: 'Plan the launch' })).body.task.id
}

const deliveryOf = (received: Received[], taskId: string) => until(`the delivery of task ${taskId}`, () => received.find((r) => r.body.includes(taskId)), 20_000)

/** `mats webhooks reseal --json` as the operator runs it, with these keys: its exit code and report. */
async function reseal(t: Test, servers: TestServers, keys: Record<string, string>): Promise<[number | null, ResealReport]> {
  const child = spawnMats(t, ['webhooks', 'reseal', '--json'], { NATS_URL: servers.natsUrl, MONGODB_URL: servers.mongoUrl, ...keys })
  const output = collectOutput(child)
  const code = await exited(child)
  try {
    return [code, JSON.parse(output.text()) as ResealReport]
  } catch {
    throw new Error(`mats webhooks reseal printed no report (exit ${code}): ${output.text()}`)
  }
}

/** Every sealed secret the log's latest event of each webhook holds. */
function latestSealed(events: readonly RecordedEvent[]): string[] {
  const latest = new Map<string, string[]>()
  for (const { aggregateId, data } of events) {
    const { encryptedSecret, previousEncryptedSecret } = data as { encryptedSecret?: string; previousEncryptedSecret?: string | null }
    if (encryptedSecret) latest.set(aggregateId, [encryptedSecret, ...(previousEncryptedSecret ? [previousEncryptedSecret] : [])])
  }
  return [...latest.values()].flat()
}

t.test('after mats webhooks reseal, the old operator key can go: deliveries verify before, during and after the change, and a second run appends nothing', async (t) => {
  const servers = await startServers(t)
  const [oldKey, newKey] = [aSecretKey(), aSecretKey()]
  const [rotatedHook, plainHook] = [await startWebhookReceiver(t), await startWebhookReceiver(t)]
  const env = (keys: Record<string, string>) => webhookEnv({ WEBHOOKS_PREVIOUS_SECRET_KEYS: '', ...keys })

  // Given two webhooks sealed under the old key, one of them rotated (its old secret still signs), and one deleted
  const before = await startTestService(t, servers, { env: env({ WEBHOOKS_SECRET_KEY: oldKey }) })
  const caller = await aCaller(before.infra, before.url)
  const register = async (url: string) => (await caller.api.post<CreatedWebhook>('/v1/webhooks', { url, events: ['task.created'] })).body
  const first = await register(rotatedHook.url)
  const second = await caller.api.request<{ secret: string }>('POST', `/v1/webhooks/${first.webhook.id}/rotate-secret`)
  const plain = await register(plainHook.url)
  const deleted = await register('http://127.0.0.1:9/gone')
  await caller.api.request('DELETE', `/v1/webhooks/${deleted.webhook.id}`)
  const rotatedSecrets = [first.secret, second.body.secret]
  const verifiesWithAll = async (api: ApiClient, phase: string) => {
    const taskId = await aTask(api)
    const [a, b] = [await deliveryOf(rotatedHook.received, taskId), await deliveryOf(plainHook.received, taskId)]
    for (const secret of rotatedSecrets) t.equal(verified(secret, a).data.task.id, taskId, `${phase}: the rotated webhook verifies with each of its secrets`)
    t.equal(verified(plain.secret, b).data.task.id, taskId, `${phase}: the other webhook verifies`)
  }
  await verifiesWithAll(caller.api, 'under the old key')
  await before.stop()

  // When the processes run with the new key, the old one kept as previous, and the operator reseals
  const during = await startTestService(t, servers, { env: env({ WEBHOOKS_SECRET_KEY: newKey, WEBHOOKS_PREVIOUS_SECRET_KEYS: oldKey }) })
  const api = new ApiClient(during.url, caller.key.key)
  await verifiesWithAll(api, 'new key, before the reseal')
  const unsealed = latestSealed(await streamEvents(during.infra, 'MATS_WEBHOOKS'))
  for (const sealed of unsealed) t.throws(() => new SecretBox(newKey).open(sealed), /WEBHOOKS_PREVIOUS_SECRET_KEYS/, 'before the reseal, the new key alone opens none of them')
  const [withoutOldKey, unopened] = await reseal(t, servers, { WEBHOOKS_SECRET_KEY: newKey, WEBHOOKS_PREVIOUS_SECRET_KEYS: '' })
  t.equal(withoutOldKey, 1, 'without the old key the reseal fails')
  t.same(unopened.failed.map((f) => f.webhookId).sort(), [first.webhook.id, plain.webhook.id].sort(), 'naming each webhook it could not open')
  const keys = { WEBHOOKS_SECRET_KEY: newKey, WEBHOOKS_PREVIOUS_SECRET_KEYS: oldKey }
  const report = await reseal(t, servers, keys)

  // Then
  t.same(report, [0, { webhooks: 3, resealed: 2, failed: [] }], 'the two live webhooks resealed, the deleted one left alone')
  t.same(await reseal(t, servers, keys), [0, { webhooks: 3, resealed: 0, failed: [] }], 'run again: nothing to do')
  const events = await streamEvents(during.infra, 'MATS_WEBHOOKS')
  t.equal(events.filter((e) => e.type === 'WebhookSecretResealed').length, 2, 'one WebhookSecretResealed per live webhook, none from the second run')
  const live = events.filter((e) => e.aggregateId !== deleted.webhook.id)
  t.same(
    latestSealed(live)
      .map((s) => new SecretBox(newKey).open(s))
      .sort(),
    [...rotatedSecrets, plain.secret].sort(),
    'every secret in use opens with the new key alone, unchanged',
  )
  const log = JSON.stringify(events)
  for (const secret of [...rotatedSecrets, plain.secret]) t.notOk(log.includes(secret.slice('whsec_'.length)), 'no secret in plain text in the log')
  await verifiesWithAll(api, 'new key, after the reseal')
  await during.stop()

  // And when the old key is dropped
  const after = await startTestService(t, servers, { env: env({ WEBHOOKS_SECRET_KEY: newKey }) })
  await verifiesWithAll(new ApiClient(after.url, caller.key.key), 'old key dropped')
})

import t from 'tap'
import type { ModelReply, ModelRequestView } from '../fakes/model-server.js'
import { startWebhookReceiver } from '../fakes/webhook-receiver.js'
import { languageModelRig, runToEnd } from '../helpers/language-models.js'
import { startServers } from '../helpers/servers.js'
import { until } from '../helpers/wait.js'
import { verified, webhookEnv, type CreatedWebhook } from '../helpers/webhooks.js'

/** An agent that proposes one budget change, then reports. */
const proposer = (request: ModelRequestView): ModelReply =>
  request.turn > 0
    ? { text: '# Done\n\nThe change awaits your approval.' }
    : {
        text: '',
        calls: [{ name: 'propose_action', args: { platform: 'google-ads', action: 'raise daily budget', summary: 'Raise the Kits campaign to 60 USD a day', content: 'Campaign: Kits; 60 USD' } }],
      }

interface ActionPayload {
  type: string
  timestamp: string
  data: { action: { id: string; taskId: string; status: string; reason: string | null; decidedAt: string | null } }
}

t.test('a webhook subscribed to approvals hears of an action awaiting a decision, then of the decision, signed', async (t) => {
  const servers = await startServers(t)
  const rig = await languageModelRig(t, servers, 'openai', proposer, { env: webhookEnv() })
  const { api } = rig.caller
  const receiver = await startWebhookReceiver(t)
  const other = await startWebhookReceiver(t)
  const created = await api.post<CreatedWebhook>('/v1/webhooks', { url: receiver.url, events: ['action.pending_approval', 'action.decided'] })
  t.equal(created.status, 201)
  t.same(created.body.webhook.events, ['action.pending_approval', 'action.decided'])
  const byDefault = await api.post<CreatedWebhook>('/v1/webhooks', { url: other.url })
  t.same(byDefault.body.webhook.events, ['task.created', 'task.started', 'task.completed', 'task.failed'], 'approvals are asked for by name')

  // When
  const task = await runToEnd(api, { sessionId: rig.sessionId, agentType: 'paid-media', instruction: 'Review the Kits budget' })
  await until('the action to be announced', () => receiver.received.length > 0, 15_000)
  const [pending] = receiver.received.map((r) => verified<ActionPayload>(created.body.secret, r))
  await api.post(`/v1/actions/${pending!.data.action.id}/reject`, { reason: 'too much for April' })

  // Then
  const payloads = await until(
    'the decision to be delivered',
    () => {
      const mine = receiver.received.map((r) => verified<ActionPayload>(created.body.secret, r))
      return mine.length >= 2 && mine
    },
    15_000,
  )
  t.same(
    payloads.map((p) => p.type),
    ['action.pending_approval', 'action.decided'],
    'only the approval events, in order',
  )
  t.match(payloads[0]?.data.action, { taskId: task.id, status: 'pending_approval', decidedAt: null })
  t.match(payloads[1]?.data.action, { id: pending!.data.action.id, status: 'rejected', reason: 'too much for April' })
  t.ok(payloads[1]?.data.action.decidedAt, 'with when it was decided')
  const listed = await api.get<{ actions: unknown[] }>(`/v1/tasks/${task.id}/actions`)
  t.same(payloads[1]?.data.action, listed.body.actions[0], 'the action exactly as GET /v1/tasks/{id}/actions shows it')
  await until("the other webhook to hear of the task's end", () => other.received.some((r) => r.body.includes('task.completed')), 15_000)
  t.notOk(
    other.received.some((r) => r.body.includes('"action.')),
    'a webhook with the default events hears no approvals',
  )
})

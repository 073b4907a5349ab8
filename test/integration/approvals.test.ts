import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import t, { type Test } from 'tap'
import type { PlatformConnector, PlatformConnectors } from '../../consumers/connectors/platform-connectors.js'
import type { ModelReply, ModelRequestView } from '../fakes/model-server.js'
import { eventsOf, streamEvents } from '../helpers/event-log.js'
import { languageModelRig, runToEnd } from '../helpers/language-models.js'
import { callTool, textOf } from '../helpers/mcp.js'
import { aCaller } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { until } from '../helpers/wait.js'

const servers = await startServers(t)

/** An agent that proposes one change (a LinkedIn post when the brief names LinkedIn, a budget raise otherwise), then reports. */
const proposer = (request: ModelRequestView): ModelReply => {
  if (request.turn > 0) return { text: '# Done\n\nThe change awaits your approval.' }
  const args = /LinkedIn/.test(request.brief)
    ? { platform: 'linkedin', action: 'publish post', summary: 'Announce the spring launch on LinkedIn', content: 'Spring is here: meet the Kits rocket.' }
    : { platform: 'google-ads', action: 'raise daily budget', summary: 'Raise the Kits campaign from 40 to 60 USD a day', content: 'Campaign: Kits; daily budget 60 USD' }
  return { text: '', calls: [{ name: 'propose_action', args }] }
}

interface ActionView {
  id: string
  taskId: string
  platform: string
  action: string
  summary: string
  content: string | null
  status: string
  note: string | null
  reason: string | null
  proposedAt: string
  decidedAt: string | null
}

/** A LinkedIn stand-in on loopback, and a connector that posts to it as a real one would post to LinkedIn. */
async function fakeLinkedIn(t: Test): Promise<{ connectors: PlatformConnectors; received: Record<string, unknown>[] }> {
  const received: Record<string, unknown>[] = []
  const server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>)
    res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ id: `urn:li:share:${received.length}` }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/shares`
  const linkedin: PlatformConnector = {
    platform: 'linkedin',
    async execute(action, signal) {
      const response = await fetch(url, { method: 'POST', body: JSON.stringify(action), headers: { 'idempotency-key': action.actionId }, signal })
      return { reference: ((await response.json()) as { id: string }).id }
    },
  }
  return { connectors: { find: (platform) => (platform === 'linkedin' ? linkedin : null) }, received }
}

const linkedIn = await fakeLinkedIn(t)
const rig = await languageModelRig(t, servers, 'openai', proposer, { connectors: linkedIn.connectors })
const { api } = rig.caller
const brief = (instruction: string, sessionId = rig.sessionId) => ({ sessionId, agentType: 'paid-media', instruction })

async function proposedAction(instruction: string, sessionId?: string): Promise<ActionView> {
  const task = await runToEnd(api, brief(instruction, sessionId))
  const listed = await api.get<{ actions: ActionView[] }>(`/v1/tasks/${task.id}/actions`)
  if (listed.status !== 200 || listed.body.actions.length !== 1) throw new Error(`expected one action: ${JSON.stringify(listed.body)}`)
  return listed.body.actions[0]!
}

t.test('a task in an approval-required session lists its proposed action as pending approval, also among the account’s pending approvals', async (t) => {
  const action = await proposedAction('Review the budget of the Kits campaign')
  t.match(action, {
    platform: 'google-ads',
    action: 'raise daily budget',
    summary: /60 USD a day/,
    content: 'Campaign: Kits; daily budget 60 USD',
    status: 'pending_approval',
    decidedAt: null,
    reason: null,
  })
  t.ok(Date.parse(action.proposedAt), 'proposedAt is a date')
  const pending = await api.get<{ actions: ActionView[]; pagination: { total: number } }>('/v1/approvals?limit=100')
  t.equal(pending.status, 200)
  t.ok(
    pending.body.actions.some((a) => a.id === action.id),
    'listed among pending approvals',
  )
  t.ok(pending.body.actions.every((a) => a.status === 'pending_approval'))
})

t.test('approving records ActionApproved on the action’s own subject; without a connector the action stays approved; deciding again is a 409', async (t) => {
  const action = await proposedAction('Review the budget of the Kits campaign')
  const approved = await api.post<{ action: ActionView }>(`/v1/actions/${action.id}/approve`, {})
  t.equal(approved.status, 200)
  t.match(approved.body.action, { id: action.id, status: 'approved', reason: null })
  t.ok(Date.parse(approved.body.action.decidedAt ?? ''), 'decidedAt is set')

  const again = await api.post<{ error: string }>(`/v1/actions/${action.id}/approve`, {})
  t.equal(again.status, 409)
  t.match(again.body.error, /already approved/)
  const rejectAfter = await api.post<{ error: string }>(`/v1/actions/${action.id}/reject`, { reason: 'changed my mind' })
  t.equal(rejectAfter.status, 409)

  const listed = await api.get<{ actions: ActionView[] }>(`/v1/tasks/${action.taskId}/actions`)
  t.equal(listed.body.actions[0]?.status, 'approved', 'the list reads the decision back')
  const pending = await api.get<{ actions: ActionView[] }>('/v1/approvals?limit=100')
  t.notOk(
    pending.body.actions.some((a) => a.id === action.id),
    'no longer pending',
  )
  const [event, ...more] = eventsOf(await streamEvents(rig.infra, 'MATS_TASKS'), action.id)
  t.equal(more.length, 0, 'one decision, nothing executed')
  t.equal(event?.subject, `mats.action.${rig.caller.account.id}.${action.id}.ActionApproved`)
  t.same(event?.data, { taskId: action.taskId, platform: 'google-ads', action: 'raise daily budget', summary: action.summary, content: action.content, reason: null })
})

t.test('rejecting with a reason records it; an empty body is a decision without one', async (t) => {
  const action = await proposedAction('Review the budget of the Kits campaign')
  const rejected = await api.post<{ action: ActionView }>(`/v1/actions/${action.id}/reject`, { reason: 'Budget is frozen until May' })
  t.equal(rejected.status, 200)
  t.match(rejected.body.action, { status: 'rejected', reason: 'Budget is frozen until May' })
  const listed = await api.get<{ actions: ActionView[] }>(`/v1/tasks/${action.taskId}/actions`)
  t.match(listed.body.actions[0], { status: 'rejected', reason: 'Budget is frozen until May' })

  const other = await proposedAction('Review the budget of the Kits campaign')
  const bare = await api.request<{ action: ActionView }>('POST', `/v1/actions/${other.id}/reject`)
  t.equal(bare.status, 200, JSON.stringify(bare.body))
  t.equal(bare.body.action.reason, null)
})

t.test('an approved action with a connector for its platform is carried out and recorded as executed', async (t) => {
  const action = await proposedAction('Announce the launch on LinkedIn')
  const approved = await api.post<{ action: ActionView }>(`/v1/actions/${action.id}/approve`, { reason: 'Looks good' })
  t.equal(approved.status, 200)
  const executed = await until('the action to be executed', async () => {
    const { body } = await api.get<{ actions: ActionView[] }>(`/v1/tasks/${action.taskId}/actions`)
    return body.actions[0]?.status === 'executed' && body.actions[0]
  })
  t.match(executed, { reason: 'Looks good', note: /^platform reference urn:li:share:\d+$/ })
  t.match(
    linkedIn.received.find((r) => r.actionId === action.id),
    { platform: 'linkedin', content: 'Spring is here: meet the Kits rocket.' },
  )
  const types = eventsOf(await streamEvents(rig.infra, 'MATS_TASKS'), action.id).map((e) => e.type)
  t.same(types, ['ActionApproved', 'ActionExecuted'])
})

t.test('only an action pending approval can be decided; another account’s action or task is not found', async (t) => {
  const drafts = await api.post<{ session: { id: string } }>('/v1/sessions', { name: 'Drafts', autonomy: 'draft-only' })
  const draft = await proposedAction('Review the budget of the Kits campaign', drafts.body.session.id)
  t.equal(draft.status, 'draft')
  const refused = await api.post<{ error: string }>(`/v1/actions/${draft.id}/approve`, {})
  t.equal(refused.status, 409)
  t.match(refused.body.error, /action is draft/)

  const action = await proposedAction('Review the budget of the Kits campaign')
  const stranger = await aCaller(rig.infra, rig.service.url)
  const foreign = await stranger.api.post<{ error: string }>(`/v1/actions/${action.id}/approve`, {})
  t.same([foreign.status, foreign.body], [404, { error: 'action not found', code: 'not_found' }])
  const foreignList = await stranger.api.get<{ error: string }>(`/v1/tasks/${action.taskId}/actions`)
  t.equal(foreignList.status, 404)
  const unknown = await api.post<{ error: string }>('/v1/actions/7d2c1a7e-1f3b-4c55-9d8e-2b6a4f0c9e11/reject', {})
  t.same([unknown.status, unknown.body], [404, { error: 'action not found', code: 'not_found' }])
  const invalid = await api.post<{ error: string }>('/v1/actions/not-a-uuid/approve', {})
  t.equal(invalid.status, 400)
  t.match(invalid.body.error, /actionId/)
  const badReason = await api.post<{ error: string }>(`/v1/actions/${action.id}/reject`, { reason: 42 })
  t.equal(badReason.status, 400)
  t.match(badReason.body.error, /^body\.reason/)
  const still = await api.get<{ actions: ActionView[] }>(`/v1/tasks/${action.taskId}/actions`)
  t.equal(still.body.actions[0]?.status, 'pending_approval', 'nothing was decided by the refused requests')
})

t.test('MCP: list_pending_approvals lists what GET /v1/approvals does; decide_action approves, and refuses a second decision', async (t) => {
  const action = await proposedAction('Review the budget of the Kits campaign')
  const client = new Client({ name: 'approvals-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', rig.service.url), { requestInit: { headers: { Authorization: `Bearer ${rig.caller.key.key}` } } }))
  t.teardown(() => client.close())
  await client.listTools()
  const call = (name: string, args: Record<string, unknown>) => callTool(client, name, args)
  const text = textOf

  const listed = await call('list_pending_approvals', { limit: 100 })
  t.same(listed.structuredContent, (await api.get('/v1/approvals?limit=100')).body, 'list_pending_approvals is GET /v1/approvals')
  t.match(text(listed), action.id, 'the text names the action id to pass to decide_action')

  const decided = await call('decide_action', { actionId: action.id, decision: 'reject', reason: 'Not this quarter' })
  t.notOk(decided.isError, text(decided))
  t.match(decided.structuredContent, { action: { id: action.id, status: 'rejected', reason: 'Not this quarter' } })
  const again = await call('decide_action', { actionId: action.id, decision: 'approve' })
  t.ok(again.isError)
  t.match(text(again), /already rejected/)
  const bad = await call('decide_action', { actionId: action.id, decision: 'maybe' })
  t.ok(bad.isError)
  t.match(text(bad), /decision/)
})

import { availableParallelism, loadavg } from 'node:os'
import t from 'tap'
import type { ModelReply, ModelRequestView } from '../fakes/model-server.js'
import { startWebhookReceiver, type Received } from '../fakes/webhook-receiver.js'
import { languageModelRig } from '../helpers/language-models.js'
import { startServers } from '../helpers/servers.js'
import { percentile, sampleRoundTrips } from '../helpers/round-trips.js'
import { until } from '../helpers/wait.js'
import { verified, webhookEnv, type CreatedWebhook } from '../helpers/webhooks.js'

const EVERY_EVENT = ['task.created', 'task.started', 'task.completed', 'task.failed', 'action.pending_approval', 'action.decided']
/** What a webhook registered without `events` receives (DEFAULT_WEBHOOK_EVENTS): what a user who subscribes plainly gets. */
const DEFAULT_EVENTS = ['task.created', 'task.started', 'task.completed', 'task.failed']
const KINDS = ['completes', 'fails', 'proposes', 'is cancelled'] as const
type Kind = (typeof KINDS)[number]
/** What a task of each kind delivers to each webhook: the default one leaves the action events out. */
const DELIVERIES: Record<Kind, { every: number; default: number }> = {
  completes: { every: 3, default: 3 },
  fails: { every: 3, default: 3 },
  proposes: { every: 5, default: 3 },
  'is cancelled': { every: 3, default: 3 },
}
/** The first round warms up (first queries, connections, JIT) and is not counted. */
const ROUNDS = 9
/** The target (issue 19): p99 from append to delivery, for a prompt receiver, every event type. */
const TARGET_P99_MS = 200
/**
 * Steps one after the other on the way of the slowest event (NATS or MongoDB round trips):
 * the last event of a task's burst waits for the fan-out of it (a pull, two reads, a publish)
 * and for each earlier job of its task to be checked, leased, posted and acknowledged (about
 * eight each). On a machine so busy that one round trip takes more than 200 ms / 25 = 8 ms at
 * its p99, the bound is that many of the round trips measured in the same run instead: the
 * test still fails on a wait the product adds (issue 19's cost 5 s) and not on a starved CPU.
 */
const SEQUENTIAL_STEPS = 25
/**
 * However starved the machine, a wait of seconds the product adds still fails the test (issue
 * 19's was 5 s on every event after a task's first). At load 25 to 26 on 2 cores the slowest of
 * 32 deliveries took 2.4 s, spent in the steps themselves (probed: no timer or poll wait on its
 * way), so 2.5 s was too close to hold on such a machine.
 */
const CEILING_MS = 4000

/** A brief saying FAIL is refused by the provider; PROPOSE proposes one action, then reports; HANG never answers (until cancelled); others just report. */
function script(request: ModelRequestView): ModelReply {
  if (request.brief.includes('FAIL')) return { status: 400, error: 'the model refuses this brief' }
  if (request.brief.includes('HANG')) return { hang: true }
  if (request.brief.includes('PROPOSE') && request.turn === 0) {
    return { text: '', calls: [{ name: 'propose_action', args: { platform: 'google-ads', action: 'raise daily budget', summary: 'Raise the budget', content: '60 USD a day' } }] }
  }
  return { text: '# Done\n\nReported.' }
}

const BRIEFS: Record<Kind, string> = { completes: 'report', fails: 'FAIL', proposes: 'PROPOSE', 'is cancelled': 'HANG' }

interface Payload {
  type: string
  timestamp: string
  data: { task?: { id: string; status: string; error?: string | null }; action?: { id: string; taskId: string } }
}

/** From append (the event's timestamp) to arrival at the receiver, per event type, past the warm-up round. */
function latenessByType(secret: string, received: readonly Received[], warmUp: number): Map<string, number[]> {
  const lateness = new Map<string, number[]>()
  for (const request of received.slice(warmUp)) {
    const payload = verified<Payload>(secret, request)
    lateness.set(payload.type, [...(lateness.get(payload.type) ?? []), request.at - Date.parse(payload.timestamp)])
  }
  return lateness
}

/** How many deliveries the warm-up round makes to a webhook. */
const firstRound = (subscription: 'every' | 'default') => KINDS.reduce((sum, kind) => sum + DELIVERIES[kind][subscription], 0)

// The production retry base (5 s): the wait that made issue 19's events 5 s late was derived from it.
t.test('every event type of a task’s life reaches a prompt receiver within milliseconds of its append, with the default subscription and with every event: p50 and p99 printed per type', async (t) => {
  const servers = await startServers(t)
  const rig = await languageModelRig(t, servers, 'openai', script, { env: webhookEnv({ LLM_MAX_RETRIES: '0', WEBHOOKS_RETRY_BASE_MS: '5000' }) })
  const { api } = rig.caller
  const [everyReceiver, defaultReceiver] = [await startWebhookReceiver(t), await startWebhookReceiver(t)]
  const every = (await api.post<CreatedWebhook>('/v1/webhooks', { url: everyReceiver.url, events: EVERY_EVENT })).body
  const plain = (await api.post<CreatedWebhook & { webhook: { events: string[] } }>('/v1/webhooks', { url: defaultReceiver.url })).body
  t.same(plain.webhook.events, DEFAULT_EVENTS, 'registered without events: the default subscription')
  const payloads = () => everyReceiver.received.map((r) => verified<Payload>(every.secret, r))
  const baseline = await sampleRoundTrips(t, servers.natsUrl)
  const loadBefore = loadavg()

  // When: rounds of four tasks, one of each kind, one after the other (a task's own events still come in bursts);
  // every proposed action is rejected once announced, every hanging task cancelled once its start is delivered
  const expected = { every: 0, default: 0 }
  for (let round = 0; round < ROUNDS; round++) {
    for (const kind of KINDS) {
      const created = await api.post<{ task: { id: string } }>('/v1/tasks', { sessionId: rig.sessionId, agentType: 'paid-media', instruction: `Round ${round}: ${BRIEFS[kind]}` })
      const taskId = created.body.task.id
      expected.every += DELIVERIES[kind].every
      expected.default += DELIVERIES[kind].default
      if (kind === 'proposes') {
        const pending = await until('the action of this round to be announced', () => payloads().find((p) => p.type === 'action.pending_approval' && p.data.action?.taskId === taskId), 15_000)
        await api.post(`/v1/actions/${pending.data.action?.id}/reject`, { reason: 'not now' })
      }
      if (kind === 'is cancelled') {
        await until('the hanging task’s start to be delivered', () => payloads().some((p) => p.type === 'task.started' && p.data.task?.id === taskId), 15_000)
        await api.post(`/v1/tasks/${taskId}/cancel`, {})
      }
      await until(`the deliveries of this ${kind} task`, () => everyReceiver.received.length >= expected.every && defaultReceiver.received.length >= expected.default, 15_000)
    }
  }

  // Then
  const roundTrips = await baseline.stop()
  const [baseP50, baseP99] = [percentile(roundTrips, 50), percentile(roundTrips, 99)]
  const bound = Math.min(CEILING_MS, Math.max(TARGET_P99_MS, Math.round(SEQUENTIAL_STEPS * baseP99)))
  const load = (figures: number[]) => figures.map((x) => x.toFixed(1)).join(' ')
  t.comment(`machine: ${availableParallelism()} cores, load average (1, 5, 15 min) ${load(loadBefore)} before, ${load(loadavg())} after`)
  t.comment(`machine baseline, NATS round trip beside the deliveries: n=${roundTrips.length} p50=${baseP50.toFixed(1)} ms p99=${baseP99.toFixed(1)} ms; p99 bound ${bound} ms`)
  const why = bound === TARGET_P99_MS ? 'the target: the machine is not starved' : `the machine is starved: ${SEQUENTIAL_STEPS} round trips at their p99, at most ${CEILING_MS} ms`
  const cancelled = payloads().filter((p) => p.type === 'task.failed' && p.data.task?.error?.startsWith('cancelled')).length
  t.equal(cancelled, ROUNDS, 'each round, the cancelled task delivered task.failed as cancelled')
  for (const [subscription, secret, received, types, warmUp] of [
    ['every event', every.secret, everyReceiver.received, EVERY_EVENT, firstRound('every')],
    ['default subscription', plain.secret, defaultReceiver.received, DEFAULT_EVENTS, firstRound('default')],
  ] as const) {
    const lateness = latenessByType(secret, received, warmUp)
    t.same([...lateness.keys()].sort(), [...types].sort(), `${subscription}: every event type was delivered`)
    for (const type of types) {
      const sorted = (lateness.get(type) ?? []).sort((a, b) => a - b)
      const [p50, p99] = [percentile(sorted, 50), percentile(sorted, 99)]
      t.comment(`${subscription}, ${type}: n=${sorted.length} p50=${p50} ms p99=${p99} ms max=${sorted.at(-1)} ms (append to delivery)`)
      t.ok(p99 <= bound, `${subscription}, ${type}: p99 ${p99} ms within ${bound} ms (${why})`)
    }
  }
})

import t from 'tap'
import type { ModelReply, ModelRequestView } from '../fakes/model-server.js'
import { startWebhookReceiver } from '../fakes/webhook-receiver.js'
import { languageModelRig } from '../helpers/language-models.js'
import { startServers } from '../helpers/servers.js'
import { percentile, sampleRoundTrips } from '../helpers/round-trips.js'
import { until } from '../helpers/wait.js'
import { verified, webhookEnv, type CreatedWebhook } from '../helpers/webhooks.js'

const EVERY_EVENT = ['task.created', 'task.started', 'task.completed', 'task.failed', 'action.pending_approval', 'action.decided']
/** What a run of each kind of task delivers. */
const DELIVERIES = { completes: 3, fails: 3, proposes: 5 }
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
/** However starved the machine, a wait of seconds the product adds still fails the test. */
const CEILING_MS = 2500

/** A task whose brief says FAIL is refused by the provider; PROPOSE proposes one action, then reports; others just report. */
function script(request: ModelRequestView): ModelReply {
  if (request.brief.includes('FAIL')) return { status: 400, error: 'the model refuses this brief' }
  if (request.brief.includes('PROPOSE') && request.turn === 0) {
    return { text: '', calls: [{ name: 'propose_action', args: { platform: 'google-ads', action: 'raise daily budget', summary: 'Raise the budget', content: '60 USD a day' } }] }
  }
  return { text: '# Done\n\nReported.' }
}

interface Payload {
  type: string
  timestamp: string
  data: { task?: { id: string }; action?: { id: string; taskId: string } }
}

// The production retry base (5 s): the wait that made issue 19's events 5 s late was derived from it.
t.test('every event type reaches a prompt receiver within milliseconds of its append: p50 and p99 printed per type', async (t) => {
  const servers = await startServers(t)
  const rig = await languageModelRig(t, servers, 'openai', script, { env: webhookEnv({ LLM_MAX_RETRIES: '0', WEBHOOKS_RETRY_BASE_MS: '5000' }) })
  const { api } = rig.caller
  const receiver = await startWebhookReceiver(t)
  const { secret } = (await api.post<CreatedWebhook>('/v1/webhooks', { url: receiver.url, events: EVERY_EVENT })).body
  const payloads = () => receiver.received.map((r) => ({ payload: verified<Payload>(secret, r), at: r.at }))
  const baseline = await sampleRoundTrips(t, servers.natsUrl)

  // When: rounds of three tasks, one of each kind, one after the other (a task's own events still come in bursts); every proposed action is rejected once announced
  let expected = 0
  for (let round = 0; round < ROUNDS; round++) {
    for (const kind of ['completes', 'fails', 'proposes'] as const) {
      await api.post('/v1/tasks', { sessionId: rig.sessionId, agentType: 'paid-media', instruction: `Round ${round}: ${kind === 'fails' ? 'FAIL' : kind === 'proposes' ? 'PROPOSE' : 'report'}` })
      expected += DELIVERIES[kind]
      if (kind === 'proposes') {
        const pending = await until('the action of this round to be announced', () => payloads().filter((p) => p.payload.type === 'action.pending_approval')[round], 15_000)
        await api.post(`/v1/actions/${pending.payload.data.action?.id}/reject`, { reason: 'not now' })
      }
      await until(`the deliveries of this ${kind} task`, () => receiver.received.length >= expected, 15_000)
    }
  }

  // Then
  const roundTrips = await baseline.stop()
  const [baseP50, baseP99] = [percentile(roundTrips, 50), percentile(roundTrips, 99)]
  const bound = Math.min(CEILING_MS, Math.max(TARGET_P99_MS, Math.round(SEQUENTIAL_STEPS * baseP99)))
  t.comment(`machine baseline, NATS round trip beside the deliveries: n=${roundTrips.length} p50=${baseP50.toFixed(1)} ms p99=${baseP99.toFixed(1)} ms; p99 bound ${bound} ms`)
  const lateness = new Map<string, number[]>()
  const warmUp = DELIVERIES.completes + DELIVERIES.fails + DELIVERIES.proposes
  for (const { payload, at } of payloads().slice(warmUp)) lateness.set(payload.type, [...(lateness.get(payload.type) ?? []), at - Date.parse(payload.timestamp)])
  t.same([...lateness.keys()].sort(), [...EVERY_EVENT].sort(), 'every event type was delivered')
  for (const type of EVERY_EVENT) {
    const sorted = (lateness.get(type) ?? []).sort((a, b) => a - b)
    const [p50, p99] = [percentile(sorted, 50), percentile(sorted, 99)]
    t.comment(`${type}: n=${sorted.length} p50=${p50} ms p99=${p99} ms max=${sorted.at(-1)} ms (append to delivery)`)
    const why = bound === TARGET_P99_MS ? 'the target: the machine is not starved' : `the machine is starved: ${SEQUENTIAL_STEPS} round trips at their p99, at most ${CEILING_MS} ms`
    t.ok(p99 <= bound, `${type}: p99 ${p99} ms within ${bound} ms (${why})`)
  }
})

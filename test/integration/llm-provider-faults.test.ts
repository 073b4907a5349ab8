import t from 'tap'
import { monthToDate } from '../../src/commands/create-task/budget.js'
import type { AppContext } from '../../src/app-context.js'
import type { ModelReply } from '../fakes/model-server.js'
import { capturingLog, languageModelRig, MODEL, runToEnd } from '../helpers/language-models.js'
import { eventsOf, streamEvents } from '../helpers/event-log.js'
import { startServers } from '../helpers/servers.js'

/** Replies that break the wire format in ways a real provider or a proxy in front of it has. */
const servers = await startServers(t)
const brief = (sessionId: string) => ({ sessionId, agentType: 'organic-social', instruction: 'Write three launch posts for LinkedIn' })
const DELIVERABLE = '# Three posts\n\n1. Lift-off.\n2. Countdown.\n3. Orbit.'
const WIRES = ['openai', 'anthropic'] as const

async function terminalData(infra: AppContext, taskId: string, type: 'TaskCompleted' | 'TaskFailed'): Promise<Record<string, unknown>> {
  const [event] = eventsOf(await streamEvents(infra, 'MATS_TASKS'), taskId, type)
  if (!event) throw new Error(`no ${type} for ${taskId}`)
  return event.data as Record<string, unknown>
}

for (const wire of WIRES) {
  t.test(`${wire}: a reply without usage is estimated at four characters a token, and paid for`, async (t) => {
    const rig = await languageModelRig(t, servers, wire, () => ({ text: DELIVERABLE, usage: null }))
    const task = await runToEnd(rig.caller.api, brief(rig.sessionId))
    t.equal(task.status, 'completed', task.error ?? '')
    const sent = rig.fake.requests[0]?.body ?? {}
    // What the client sent, as it estimates it: the whole conversation (OpenAI's carries the system prompt inside).
    const prompt = wire === 'openai' ? JSON.stringify(sent.messages) : JSON.stringify({ system: sent.system, messages: sent.messages })
    const inputTokens = Math.ceil(prompt.length / 4)
    const outputTokens = Math.ceil(`${DELIVERABLE}[]`.length / 4)
    const completed = await terminalData(rig.infra, task.id, 'TaskCompleted')
    t.same(completed.usage, { provider: wire, model: MODEL, inputTokens, outputTokens })
    t.equal(completed.costMicros, Math.round(inputTokens * 2 + outputTokens * 8), 'at 2 and 8 USD per million tokens')
  })
}

const UNREADABLE: readonly { what: string; reply: ModelReply; error: RegExp }[] = [
  { what: 'an HTML page', reply: { raw: '<html><body>502 Bad Gateway</body></html>', contentType: 'text/html' }, error: /a body that is not JSON: "<html><body>502 Bad Gateway/ },
  { what: 'JSON cut short', reply: { raw: '{"id": "x", "choi', contentType: 'application/json' }, error: /its body is not JSON \(.*JSON/ },
  { what: 'JSON of another shape', reply: { raw: '{"status": "ok"}', contentType: 'application/json' }, error: /reply with the fields status/ },
]

for (const wire of WIRES) {
  for (const { what, reply, error } of UNREADABLE) {
    t.test(`${wire}: a 200 reply that is ${what} fails the run with provider_error, and the log says the provider sent it`, async (t) => {
      const { log, lines } = capturingLog('warn')
      const rig = await languageModelRig(t, servers, wire, () => reply, { log })
      const task = await runToEnd(rig.caller.api, brief(rig.sessionId))
      t.equal(task.status, 'failed')
      t.match(task.error, /^the language model provider sent a reply mats cannot read: /)
      t.match(task.error, error)
      t.match(await terminalData(rig.infra, task.id, 'TaskFailed'), { reason: 'provider_error', usage: null, costMicros: 0 }, 'no usage was reported')
      const logged = lines.map((line) => JSON.parse(line) as { msg: string; reason?: string; error?: string }).find((line) => line.msg === 'agent run failed')
      t.match(logged, { reason: 'provider_error', error: /the language model provider sent a reply mats cannot read/ })
      t.equal(rig.fake.requests.length, 1, 'a 200 is not retried')
    })
  }
}

for (const wire of WIRES) {
  t.test(`${wire}: a refusal carries the provider's message, not its JSON body; a run without a reply has usage null`, async (t) => {
    const rig = await languageModelRig(t, servers, wire, () => ({ status: 400, error: 'max_tokens: 100000 > 64000, which is the maximum allowed for this model' }))
    const task = await runToEnd(rig.caller.api, brief(rig.sessionId))
    t.equal(task.status, 'failed')
    t.equal(task.error, 'the language model provider refused the call: 400 max_tokens: 100000 > 64000, which is the maximum allowed for this model')
    t.match(await terminalData(rig.infra, task.id, 'TaskFailed'), { reason: 'provider_error', usage: null, costMicros: 0 })
    t.equal((await monthToDate(rig.infra, rig.caller.account.id, new Date())).spentMicros, 0)
  })

  t.test(`${wire}: a refusal whose body is not JSON (a proxy's) is quoted as text`, async (t) => {
    const rig = await languageModelRig(t, servers, wire, () => ({ raw: 'upstream connect error or disconnect/reset before headers', contentType: 'text/plain', status: 403 }))
    const task = await runToEnd(rig.caller.api, brief(rig.sessionId))
    t.equal(task.error, 'the language model provider refused the call: 403 upstream connect error or disconnect/reset before headers')
  })
}

for (const wire of WIRES) {
  t.test(`${wire}: empty replies are asked again twice, after a pause, then the run fails saying the provider returned nothing`, async (t) => {
    const arrivals: number[] = []
    const rig = await languageModelRig(t, servers, wire, () => {
      arrivals.push(Date.now())
      return { empty: true }
    })
    const task = await runToEnd(rig.caller.api, brief(rig.sessionId))
    t.equal(task.status, 'failed')
    t.equal(task.error, 'the language model provider returned an empty reply (no text, no tool call) 3 times in a row')
    t.equal(rig.fake.requests.length, 3, 'two re-asks, not the 12 steps')
    const [first = 0, second = 0, third = 0] = arrivals
    t.ok(second - first >= 490, `a pause before the first re-ask (${second - first} ms)`)
    t.ok(third - second >= 990, `a longer one before the second (${third - second} ms)`)
    t.match(await terminalData(rig.infra, task.id, 'TaskFailed'), { reason: 'provider_error', usage: { inputTokens: 3000, outputTokens: 600 }, costMicros: 3 * 3600 }, 'each empty reply was billed')
  })

  t.test(`${wire}: a reply after two empty ones is the deliverable`, async (t) => {
    const replies: ModelReply[] = [{ empty: true }, { empty: true }, { text: DELIVERABLE }]
    const rig = await languageModelRig(t, servers, wire, () => replies.shift() ?? { status: 500, error: 'no more replies' })
    const task = await runToEnd(rig.caller.api, brief(rig.sessionId))
    t.equal(task.status, 'completed', task.error ?? '')
    t.equal(task.result, DELIVERABLE)
    t.equal(rig.fake.requests.length, 3)
  })
}

import t from 'tap'
import { monthToDate } from '../../src/commands/create-task/budget.js'
import { tasksProjection } from '../../projections/index.js'
import { startService } from '../../src/service.js'
import { startFakeModelServer, type ModelReply, type ModelRequestView } from '../fakes/model-server.js'
import { capturingLog, languageModelRig, MODEL, PRICES, PROVIDER_KEY, runToEnd } from '../helpers/language-models.js'
import { eventsOf, streamEvents } from '../helpers/event-log.js'
import { aCaller, aSessionBody } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { testConfig } from '../helpers/service.js'
import { until } from '../helpers/wait.js'

const servers = await startServers(t)
const brief = (sessionId: string, instruction = 'Write three launch posts for LinkedIn') => ({ sessionId, agentType: 'organic-social', instruction })
const deliverable: ModelReply = { text: '# Three posts\n\n1. Lift-off.\n2. Countdown.\n3. Orbit.' }

for (const [wire, status] of [
  ['anthropic', 429],
  ['openai', 429],
  ['anthropic', 529],
  ['openai', 503],
] as const) {
  t.test(`${wire}: a ${status} from the provider is retried with backoff inside the run, which then completes`, async (t) => {
    const rig = await languageModelRig(t, servers, wire, (request) =>
      request.turn === 0 && rig.fake.requests.length === 1 ? { status, error: 'slow down', headers: { 'retry-after-ms': '20' } } : deliverable,
    )
    const task = await runToEnd(rig.caller.api, brief(rig.sessionId))
    t.equal(task.status, 'completed', task.error ?? '')
    t.equal(rig.fake.requests.length, 2, 'one refused call, one retry')
    const events = eventsOf(await streamEvents(rig.infra, 'MATS_TASKS'), task.id)
    t.same(
      events.map((e) => e.type),
      ['TaskCreated', 'TaskStarted', 'TaskCompleted'],
      'the retry is inside the run: the task is not retried',
    )
  })
}

t.test('a provider that keeps refusing fails the run with provider_error, after the configured retries', async (t) => {
  const rig = await languageModelRig(t, servers, 'openai', () => ({ status: 500, error: 'upstream exploded', headers: { 'retry-after-ms': '5' } }))
  const task = await runToEnd(rig.caller.api, brief(rig.sessionId))
  t.equal(task.status, 'failed')
  t.match(task.error, /the language model provider refused the call: 500 upstream exploded/)
  t.equal(rig.fake.requests.length, 3, 'the first call and LLM_MAX_RETRIES=2 retries')
  const [failed] = eventsOf(await streamEvents(rig.infra, 'MATS_TASKS'), task.id, 'TaskFailed')
  t.equal((failed?.data as { reason: string } | undefined)?.reason, 'provider_error')
})

t.test('a provider that never answers fails the run at its time limit', async (t) => {
  const rig = await languageModelRig(t, servers, 'anthropic', () => ({ hang: true }), { env: { TASK_TIMEOUT_MS: '1500' } })
  const task = await runToEnd(rig.caller.api, brief(rig.sessionId))
  t.equal(task.status, 'failed')
  t.equal(task.error, 'the run exceeded its time limit of 1.5 seconds')
  const [failed] = eventsOf(await streamEvents(rig.infra, 'MATS_TASKS'), task.id, 'TaskFailed')
  t.equal((failed?.data as { reason: string } | undefined)?.reason, 'timeout')
  t.equal(rig.fake.requests.length, 1, 'the call was made, and abandoned when the time was up')
})

t.test('a run that uses all its steps fails with step_limit, and the tokens it used are paid for', async (t) => {
  const rig = await languageModelRig(t, servers, 'openai', (request) => ({ text: '', calls: [{ name: 'remember_fact', args: { fact: `Fact number ${request.turn}` } }] }), {
    env: { LLM_MAX_STEPS: '3' },
  })
  const task = await runToEnd(rig.caller.api, brief(rig.sessionId))
  t.equal(task.status, 'failed')
  t.equal(task.error, 'the agent used all 3 of its steps without finishing its deliverable')
  const [failed] = eventsOf(await streamEvents(rig.infra, 'MATS_TASKS'), task.id, 'TaskFailed')
  t.match(failed?.data, { reason: 'step_limit', usage: { provider: 'openai', model: MODEL, inputTokens: 3000, outputTokens: 600 }, costMicros: 3 * 3600 })
  await until('the failed run’s cost in the spend read model', async () => (await monthToDate(rig.infra, rig.caller.account.id, new Date())).spentMicros === 3 * 3600)
  t.same(eventsOf(await streamEvents(rig.infra, 'MATS_SESSIONS'), rig.sessionId, 'SessionFactLearned'), [], 'a failed run teaches the session nothing')
})

t.test('a malformed tool call is answered with what was wrong, and the corrected call goes through', async (t) => {
  const rig = await languageModelRig(t, servers, 'openai', (request) => {
    if (request.turn === 0) return { text: '', calls: [{ name: 'propose_action', args: '{"platform": "linkedin", "action": ' }] }
    if (request.turn === 1) return { text: '', calls: [{ name: 'propose_action', args: { platform: 'linkedin', action: 'publish post', summary: 'x', colour: 'red' } }] }
    if (request.turn === 2) return { text: '', calls: [{ name: 'propose_action', args: { platform: 'linkedin', action: 'publish post', summary: 'Post the countdown' } }] }
    return deliverable
  })
  const task = await runToEnd(rig.caller.api, brief(rig.sessionId))
  t.equal(task.status, 'completed', task.error ?? '')
  t.match(rig.fake.requests[1]?.toolResults[0]?.content, /the arguments of propose_action are not valid JSON/)
  t.match(rig.fake.requests[2]?.toolResults[0]?.content, /invalid arguments for propose_action: arguments: must not have additional properties \(colour\)/)
  t.match(rig.fake.requests[3]?.toolResults[0]?.content, /^Recorded as action .*: pending_approval/)
  t.equal(eventsOf(await streamEvents(rig.infra, 'MATS_TASKS'), task.id, 'TaskActionProposed').length, 1, 'only the valid call was recorded')
})

t.test('a model that keeps sending malformed tool calls fails the run with a useful error', async (t) => {
  const rig = await languageModelRig(t, servers, 'anthropic', () => ({ text: '', calls: [{ name: 'publish_now', args: {} }] }))
  const task = await runToEnd(rig.caller.api, brief(rig.sessionId))
  t.equal(task.status, 'failed')
  t.equal(task.error, 'the model sent malformed tool calls 3 turns in a row; the last problem: there is no tool named "publish_now"; the tools are propose_action, remember_fact')
  t.equal(rig.fake.requests.length, 3)
})

for (const wire of ['openai', 'anthropic'] as const) {
  t.test(`${wire}: an empty reply is asked again; a deliverable cut off at the output limit is continued and joined`, async (t) => {
    const replies: ModelReply[] = [{ text: '' }, { text: '# Posts\n\n1. Lift-off, ', truncated: true }, { text: 'then 2. Countdown.' }]
    const rig = await languageModelRig(t, servers, wire, () => replies.shift() ?? { status: 500, error: 'no more replies' })
    const task = await runToEnd(rig.caller.api, brief(rig.sessionId))
    t.equal(task.status, 'completed', task.error ?? '')
    t.equal(task.result, '# Posts\n\n1. Lift-off, then 2. Countdown.')
    t.equal(rig.fake.requests.length, 3)
    t.equal(rig.fake.requests[1]?.turn, 0, 'the empty reply left no turn in the history')
  })
}

t.test('the provider key is sent to the provider only: never logged, stored, or put in an error', async (t) => {
  const fake = await startFakeModelServer(t, 'openai', (request: ModelRequestView) => (request.turn === 0 ? { status: 401, error: `Incorrect API key provided: ${PROVIDER_KEY}` } : deliverable))
  const { log, lines } = capturingLog('trace')
  const config = testConfig(servers, { LLM_PROVIDER: 'openai', LLM_BASE_URL: fake.baseUrl, LLM_API_KEY: PROVIDER_KEY, LLM_MODEL: MODEL, LLM_PRICES: PRICES, LOG_LEVEL: 'trace' })
  const service = await startService(config, log, new Set(['api', 'worker', 'projector'] as const))
  t.teardown(() => service.stop())
  const caller = await aCaller(service.infra, service.url ?? '')
  const session = await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())
  const task = await runToEnd(caller.api, brief(session.body.session.id))
  t.equal(task.status, 'failed')
  t.equal(task.error, 'the language model provider refused the call: 401 Incorrect API key provided: [redacted]')
  t.equal(fake.requests[0]?.headers.authorization, `Bearer ${PROVIDER_KEY}`, 'the provider did get the key')
  t.ok(lines.length > 10, 'the service logged at trace level')
  t.notOk(
    lines.some((line) => line.includes(PROVIDER_KEY)),
    'no log line holds the key',
  )
  for (const stream of ['MATS_ACCOUNTS', 'MATS_SESSIONS', 'MATS_TASKS']) {
    t.notOk(
      (await streamEvents(service.infra, stream)).some((e) => JSON.stringify(e).includes(PROVIDER_KEY)),
      `no event in ${stream} holds the key`,
    )
  }
  const docs = await service.infra.readModels.collection(tasksProjection).find({}).toArray()
  t.notOk(JSON.stringify(docs).includes(PROVIDER_KEY), 'no read model holds the key')
})

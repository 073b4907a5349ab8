import t from 'tap'
import { monthToDate } from '../../src/commands/create-task/budget.js'
import type { Wire } from '../fakes/model-server.js'
import { languageModelRig, MODEL, PROVIDER_KEY, runToEnd } from '../helpers/language-models.js'
import { eventsOf, streamEvents } from '../helpers/event-log.js'
import { startServers } from '../helpers/servers.js'
import { until } from '../helpers/wait.js'

const servers = await startServers(t)

const DELIVERABLE = '# SEO plan for Acme Rockets\n\n1. Fix the crawl errors on /kits.\n2. Write the launch pillar page.'
const FACT = 'Acme Rockets sells only through certified hobby dealers'

/** A specialist that saves a fact and proposes a post in its first turn, then delivers. */
const specialistScript = (wire: Wire) => (request: { turn: number }) =>
  request.turn === 0
    ? {
        text: '',
        calls: [
          { name: 'remember_fact', args: { fact: FACT } },
          { name: 'propose_action', args: { platform: 'linkedin', action: 'publish post', summary: 'Announce the launch kit on the company page', content: 'Lift-off! Our launch kit is here.' } },
        ],
        usage: { input: 1000, output: 200 },
      }
    : { text: `${DELIVERABLE}\n\n(${wire})`, usage: { input: 1500, output: 300 } }

for (const wire of ['openai', 'anthropic'] as const) {
  t.test(`${wire}: a specialist run uses the session's context, records what it proposed and learned, and is paid for`, async (t) => {
    const rig = await languageModelRig(t, servers, wire, specialistScript(wire))
    const task = await runToEnd(rig.caller.api, { sessionId: rig.sessionId, agentType: 'seo', instruction: 'Plan the SEO for our launch kit' })

    t.equal(task.status, 'completed', task.error ?? '')
    t.ok(task.result?.startsWith(DELIVERABLE), 'the result is the model’s deliverable')
    t.match(task.result, /## Proposed actions[\s\S]*\*\*publish post\*\* on linkedin[\s\S]*Awaiting approval \(nothing changed yet\)/, 'the result says what awaits approval')

    const [first, second] = rig.fake.requests
    t.equal(rig.fake.requests.length, 2, 'two model calls: tools, then the deliverable')
    t.match(first?.system, /You are the SEO Specialist/)
    for (const context of ['Acme Rockets', 'https://acme.example', 'Aerospace', 'Hobbyist rocketeers in North America', 'Technical SEO']) t.match(first?.system, context)
    t.match(first?.system, /requires approval/, 'the prompt states the session’s autonomy')
    t.equal(first?.brief, 'Plan the SEO for our launch kit')
    t.same(first?.toolNames, ['propose_action', 'remember_fact'], 'a specialist cannot delegate')
    t.equal(first?.model, MODEL)
    t.match(second?.toolResults.map((r) => r.content).join('\n'), /pending_approval/, 'the model is told what became of its action')
    // The OpenAI SDK sends the key as a bearer token; Anthropic's sends it as x-api-key or, in recent versions, as a bearer token.
    t.ok(first?.headers.authorization === `Bearer ${PROVIDER_KEY}` || (wire === 'anthropic' && first?.headers['x-api-key'] === PROVIDER_KEY), 'the provider receives the key')

    const events = await streamEvents(rig.infra, 'MATS_TASKS')
    const [proposed] = eventsOf(events, task.id, 'TaskActionProposed')
    t.match(proposed?.data, { platform: 'linkedin', action: 'publish post', status: 'pending_approval', content: 'Lift-off! Our launch kit is here.' })
    const [completed] = eventsOf(events, task.id, 'TaskCompleted')
    // 2500 input tokens at 2 USD/M and 500 output tokens at 8 USD/M: 5000 + 4000 micro-USD.
    t.same(completed?.data, { ...(completed?.data as object), usage: { provider: wire, model: MODEL, inputTokens: 2500, outputTokens: 500 }, costMicros: 9000, learnedFacts: [FACT] })
    const spend = await until('the cost to reach the spend read model', async () => {
      const now = await monthToDate(rig.infra, rig.caller.account.id, new Date())
      return now.spentMicros > 0 && now
    })
    t.equal(spend.spentMicros, 9000, 'the budget is charged what the run cost')

    const learned = eventsOf(await streamEvents(rig.infra, 'MATS_SESSIONS'), rig.sessionId, 'SessionFactLearned')
    t.same(
      learned.map((e) => e.data),
      [{ fact: FACT, taskId: task.id }],
    )

    const next = await runToEnd(rig.caller.api, { sessionId: rig.sessionId, agentType: 'email-marketing', instruction: 'Draft the launch email' })
    t.equal(next.status, 'completed')
    t.match(
      rig.fake.requests[2]?.system,
      /You are the Email Marketing Specialist[\s\S]*What earlier tasks in this workspace learned[\s\S]*certified hobby dealers/,
      'a later run in the session receives what was learned',
    )
    t.equal(eventsOf(await streamEvents(rig.infra, 'MATS_SESSIONS'), rig.sessionId, 'SessionFactLearned').length, 1, 'a fact the session knows is not learned twice')
  })
}

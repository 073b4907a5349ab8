import t from 'tap'
import { AGENTS, type Agent, findAgent, SPECIALIST_TYPES } from '../../src/domain/agents/catalogue.js'
import { offlinePrompt } from '../../consumers/agents/offline/deliverable.js'
import { OfflineProvider } from '../../consumers/agents/offline/offline-provider.js'
import { PLAYBOOKS } from '../../consumers/agents/offline/playbooks/index.js'
import { AgentRunError, type AgentRunRequest, type RunEffects } from '../../consumers/agents/provider.js'

const LAUNCH = 'Launch our new product with SEO content and a paid social campaign'
const acme: AgentRunRequest['session'] = {
  name: 'Spring launch',
  companyName: 'Acme Rockets',
  companyUrl: 'https://acme.example',
  industry: 'Aerospace',
  targetAudience: 'Hobbyist rocketeers',
  autonomy: 'approval-required',
  facts: [],
}
const bare: AgentRunRequest['session'] = { name: 'Bare', companyName: null, companyUrl: null, industry: null, targetAudience: null, autonomy: 'approval-required', facts: [] }
const noEffects: RunEffects = {
  proposeAction: () => Promise.reject(new Error('the offline provider proposes no actions')),
  delegate: null,
}

const requestFor = (agent: Agent, instruction = LAUNCH, session = acme): AgentRunRequest => ({
  task: { id: '00000000-0000-4000-8000-000000000001', agentType: agent.type, instruction, title: null },
  agent,
  session,
})
const provider = (latencyMs = 0) => new OfflineProvider({ latencyMs, inputPricePerMTokUsd: 3, outputPricePerMTokUsd: 15 })
const run = (request: AgentRunRequest) => provider().run(request, noEffects, new AbortController().signal)
const growth = findAgent('growth-marketer')

for (const agent of AGENTS) {
  t.test(`given a session with company context, when the ${agent.type} agent runs, then its deliverable is grounded and labelled`, async (t) => {
    const { output } = await run(requestFor(agent))
    t.ok(output.startsWith(`# ${agent.name}: `), 'opens with a title line')
    t.ok(output.includes(LAUNCH), 'quotes the instruction')
    t.ok(output.includes('Acme Rockets'), 'names the company')
    t.match(output, /no language model produced/i)
    t.match(output, /template-based planner/)
    t.ok(
      agent.subspecialties.some((sub) => output.includes(sub.name)),
      'names a subspecialty of this agent',
    )
    t.match(output, /^## Deliverables checklist$/m)
    t.match(output, /^- \[ \] /m)
    t.match(output, /^## KPIs to track$/m)
    t.match(output, /awaits approval/)
    t.match(output, /Nothing has been published, spent or sent/)
    t.notMatch(output, /\{(company|site|industry|audience)\}/, 'no unfilled template fields')
    t.ok(output.length >= 2_000 && output.length <= 8_500, `reasonably sized (${output.length} chars)`)
  })
}

t.test('given the same request, when run twice on two providers, then the outputs and usage are byte-identical', async (t) => {
  for (const agent of [growth, findAgent('seo')]) {
    const [a, b] = [await run(requestFor(agent)), await run(requestFor(agent))]
    t.equal(a.output, b.output)
    t.same(a.usage, b.usage)
    t.equal(a.costMicros, b.costMicros)
  }
})

t.test('given a launch brief naming SEO and paid social, when the supervisor runs, then it composes relevant specialists', async (t) => {
  const { output } = await run(requestFor(growth))
  const sections = SPECIALIST_TYPES.map(findAgent).filter((agent) => output.includes(`\n## ${agent.name}\n`))
  t.ok(sections.length >= 2 && sections.length <= 4, `2–4 specialist sections (${sections.map((a) => a.type).join(', ')})`)
  t.ok(output.includes('\n## SEO Specialist\n'), 'has an SEO section')
  t.ok(output.includes('\n## Paid Media Specialist\n'), 'has a paid media section')
  t.ok(output.includes('### Paid Social'), 'the paid section covers paid social')
  t.match(output, /^## Growth plan$/m)
  t.match(output, /\*\*Objective:\*\*/)
  t.match(output, /\*\*Phases\*\*/)
  t.match(output, /\*\*Channel mix\*\*/)
  const shares = [...output.matchAll(/\| (\d+)% \|$/gm)].map((m) => Number(m[1]))
  t.equal(shares.length, sections.length, 'one channel-mix row per specialist')
  t.equal(
    shares.reduce((sum, s) => sum + s, 0),
    100,
    'shares add up to 100%',
  )
})

t.test('given a brief that names no channel, when the supervisor runs, then it falls back to sensible specialists', async (t) => {
  const { output } = await run(requestFor(growth, 'Do it now'))
  for (const name of ['Paid Media Specialist', 'SEO Specialist', 'Email Marketing Specialist']) t.ok(output.includes(`\n## ${name}\n`), name)
})

t.test('given a specific brief, when a specialist runs, then the matching subspecialty leads the approach', async (t) => {
  const { output } = await run(requestFor(findAgent('seo'), 'Audit our website for technical SEO issues'))
  const approach = output.slice(output.indexOf('## Approach'))
  t.match(approach, /^## Approach\n\n[^\n]+\n\n### Technical SEO\n/)
  t.match(approach, /_Why: the brief mentions "audit", "technical", "seo"\._/)
})

t.test('given a brief that matches nothing, when a specialist runs, then it covers its first three subspecialties', async (t) => {
  const agent = findAgent('cro')
  const { output } = await run(requestFor(agent, 'Do it now'))
  const headings = [...output.matchAll(/^### (.+)$/gm)].map((m) => m[1])
  t.same(
    headings,
    agent.subspecialties.slice(0, 3).map((sub) => sub.name),
  )
})

t.test('given a session with null company fields, when agents run, then the text says what is unknown and asks for it', async (t) => {
  for (const agent of [growth, findAgent('email-marketing')]) {
    const { output } = await run(requestFor(agent, LAUNCH, bare))
    for (const label of ['Company', 'Website', 'Industry', 'Target audience']) {
      t.ok(output.includes(`- **${label}:** unknown (not supplied on the session)`), `${agent.type}: ${label} unknown`)
    }
    t.match(output, /Supply the missing context: company, website, industry and target audience\./)
    t.notMatch(output, /\bnull\b/)
    t.match(output, /the company/)
  }
})

t.test('given prices per million tokens, when an agent runs, then usage and cost follow the estimate formula', async (t) => {
  for (const agent of [growth, findAgent('creative')]) {
    const request = requestFor(agent)
    const result = await new OfflineProvider({ latencyMs: 0, inputPricePerMTokUsd: 2.5, outputPricePerMTokUsd: 10.25 }).run(request, noEffects, new AbortController().signal)
    const inputTokens = Math.ceil(offlinePrompt(request).length / 4)
    const outputTokens = Math.ceil(result.output.length / 4)
    t.same(result.usage, { provider: 'offline', model: 'mats-offline-1', inputTokens, outputTokens })
    t.ok(inputTokens > 0 && outputTokens > 0)
    t.equal(result.costMicros, Math.round(inputTokens * 2.5 + outputTokens * 10.25))
  }
  t.ok(offlinePrompt(requestFor(growth)).includes(LAUNCH), 'the estimated prompt carries the instruction')
  t.equal((await new OfflineProvider({ latencyMs: 0, inputPricePerMTokUsd: 0, outputPricePerMTokUsd: 0 }).run(requestFor(growth), noEffects, new AbortController().signal)).costMicros, 0)
})

t.test('given a 5 s latency, when the signal aborts mid-wait, then the run rejects promptly with the reason', async (t) => {
  const controller = new AbortController()
  const reason = new AgentRunError('time limit reached')
  const started = performance.now()
  const running = provider(5_000).run(requestFor(growth), noEffects, controller.signal)
  setImmediate(() => controller.abort(reason))
  await t.rejects(running, reason)
  const elapsed = performance.now() - started
  t.ok(elapsed < 100, `rejected within 100 ms (took ${elapsed.toFixed(1)} ms)`)
})

t.test('given a non-Error abort reason, when the signal aborts, then the run rejects with an AgentRunError saying so', async (t) => {
  const controller = new AbortController()
  const running = provider(5_000).run(requestFor(findAgent('seo')), noEffects, controller.signal)
  setImmediate(() => controller.abort('shutdown'))
  await t.rejects(running, { name: 'AgentRunError', message: /aborted: shutdown/ })
})

t.test('given an already aborted signal, when a run starts, then it rejects at once', async (t) => {
  const started = performance.now()
  await t.rejects(provider(5_000).run(requestFor(growth), noEffects, AbortSignal.abort()), { name: 'AbortError' })
  t.ok(performance.now() - started < 100)
})

t.test('given invalid options, when constructing the provider, then it refuses', async (t) => {
  t.throws(() => new OfflineProvider({ latencyMs: -1, inputPricePerMTokUsd: 0, outputPricePerMTokUsd: 0 }), RangeError)
  t.throws(() => new OfflineProvider({ latencyMs: 0, inputPricePerMTokUsd: Number.NaN, outputPricePerMTokUsd: 0 }), RangeError)
  t.equal(provider().name, 'offline')
})

t.test('given the catalogue, when reading the playbooks, then every agent and subspecialty is covered exactly', async (t) => {
  for (const agent of AGENTS) {
    const playbook = PLAYBOOKS[agent.type]
    t.same(Object.keys(playbook.subspecialties).sort(), agent.subspecialties.map((sub) => sub.id).sort(), `${agent.type}: same subspecialty ids`)
    for (const sub of agent.subspecialties) {
      const entry = playbook.subspecialties[sub.id]
      t.ok(entry !== undefined && entry.actions.length >= 3 && entry.actions.length <= 5, `${agent.type}/${sub.id}: 3–5 actions`)
      t.ok(entry !== undefined && entry.deliverable.length > 0 && entry.keywords.length > 0, `${agent.type}/${sub.id}: deliverable and keywords`)
    }
    t.ok(playbook.kpis.length >= 3, `${agent.type}: KPIs`)
    t.ok(playbook.approvals.length >= 1 && playbook.role.length > 0, `${agent.type}: approvals and role`)
  }
})

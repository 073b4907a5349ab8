import t from 'tap'
import { callTool, emptyRunRecord, RUN_LIMITS, toolsFor } from '../../consumers/agents/llm/tools.js'
import { PriceTable } from '../../consumers/agents/llm/pricing.js'
import { renderResult } from '../../consumers/agents/llm/result.js'
import { FACTS_IN_PROMPT, systemPrompt } from '../../consumers/agents/llm/system-prompt.js'
import type { AgentRunRequest, RunEffects } from '../../consumers/agents/provider.js'
import { actionStatusFor } from '../../src/domain/actions/proposed-action.js'
import { findAgent, SPECIALIST_TYPES } from '../../src/domain/agents/catalogue.js'
import { BudgetExhaustedError, ConflictError } from '../../src/domain/errors.js'
import { decideDelegation, decideRecordAction, decideRecordDelegation, Task, type TaskCreated, type TaskEvent, type TaskState } from '../../src/domain/tasks/task.js'
import { parsePriceTable } from '../../src/llm-config.js'

const given = (...events: TaskEvent[]): TaskState => events.reduce(Task.evolve, Task.initialState)
const createdData: TaskCreated['data'] = {
  sessionId: 's',
  agentType: 'growth-marketer',
  taskType: 'instruction',
  instruction: 'Grow',
  title: null,
  priority: 'normal',
  fingerprint: 'f',
  parentTaskId: null,
  billingMonth: '2026-11',
  reservedMicros: 0,
}
const created: TaskEvent = { type: 'TaskCreated', data: createdData }
const started: TaskEvent = { type: 'TaskStarted', data: { workerId: 'w1' } }
const action = { actionId: 'a1', platform: 'linkedin', action: 'publish post', summary: 'Launch post', content: null, status: 'pending_approval' as const, note: null }

t.test('autonomy decides what becomes of a proposed action; only an autonomous session with a connector executes', async (t) => {
  t.equal(actionStatusFor('draft-only', true), 'draft')
  t.equal(actionStatusFor('approval-required', true), 'pending_approval')
  t.equal(actionStatusFor('autonomous', false), 'not_executed')
  t.equal(actionStatusFor('autonomous', true), 'execute')
})

t.test('only the worker running a task records its actions and delegations, each once', async (t) => {
  t.same(decideRecordAction({ workerId: 'w1', action }, given(created, started)), [{ type: 'TaskActionProposed', data: action }])
  const recorded = given(created, started, { type: 'TaskActionProposed', data: action })
  t.same(decideRecordAction({ workerId: 'w1', action }, recorded), [], 'an action id is recorded once')
  t.throws(() => decideRecordAction({ workerId: 'w2', action }, given(created, started)), ConflictError, 'another worker may not')
  t.throws(() => decideRecordAction({ workerId: 'w1', action }, given(created)), ConflictError, 'a pending task has no run')
  const delegation = { childTaskId: 'c1', agentType: 'seo' as const, instruction: 'Audit' }
  const delegated = given(created, started, { type: 'TaskDelegated', data: delegation })
  t.same(delegated.status === 'running' && delegated.delegatedTaskIds, ['c1'], 'the running task remembers its children')
  t.same(decideRecordDelegation({ workerId: 'w1', delegation }, delegated), [])
})

t.test('a delegation is one decision over two tasks: the child created and the supervisor naming it, or nothing once both are stored', async (t) => {
  const delegation = { childTaskId: 'c1', agentType: 'seo' as const, instruction: 'Audit' }
  const child: TaskCreated['data'] = { ...createdData, agentType: 'seo', taskType: 'delegated', parentTaskId: 'p1' }
  const command = { workerId: 'w1', child, delegation }
  t.same(decideDelegation(command, { parent: given(created, started), child: Task.initialState }), {
    parent: [{ type: 'TaskDelegated', data: delegation }],
    child: [{ type: 'TaskCreated', data: child }],
  })
  const both = { parent: given(created, started, { type: 'TaskDelegated', data: delegation }), child: given({ type: 'TaskCreated', data: child }) }
  t.same(decideDelegation(command, both), { parent: [], child: [] }, 'asked again after both were stored')
  t.throws(() => decideDelegation(command, { parent: given(created), child: Task.initialState }), ConflictError, 'only a running supervisor delegates')
  t.throws(() => decideDelegation(command, { parent: given(created, started), child: given({ type: 'TaskCreated', data: child }) }), ConflictError, 'a child id is new')
})

const request = (agentType: 'growth-marketer' | 'seo', facts: string[] = [], company = true): AgentRunRequest => ({
  task: { id: 't', agentType, instruction: 'Grow', title: 'Q1' },
  agent: findAgent(agentType),
  session: { name: 'W', companyName: company ? 'Acme' : null, companyUrl: null, industry: null, targetAudience: company ? 'Makers' : null, autonomy: 'draft-only', facts },
})

t.test('the system prompt: the agent, the company, the newest facts, the autonomy; specialists listed for the supervisor only', async (t) => {
  const facts = Array.from({ length: FACTS_IN_PROMPT + 5 }, (_, i) => `fact ${i}`)
  const supervisor = systemPrompt(request('growth-marketer', facts))
  t.match(supervisor, /^You are the Growth Marketer/)
  t.match(supervisor, /- Company: Acme\n- Target audience: Makers/)
  t.notMatch(supervisor, /- fact 4\n/, 'the oldest facts stay out')
  t.match(supervisor, /- fact 5\n[\s\S]*- fact 44\n/)
  t.match(supervisor, /draft-only/)
  for (const type of SPECIALIST_TYPES) t.match(supervisor, `  - ${type}: `)
  const specialist = systemPrompt(request('seo', [], false))
  t.notMatch(specialist, /delegate_to_specialist/)
  t.match(specialist, /No company details were given/)
})

t.test('prices: per model, else the fallback; micro-USD rounded', async (t) => {
  const table = new PriceTable(parsePriceTable('cheap=0.15/0.6, org/big:70b=2.5 / 10'), { input: 3, output: 15 })
  t.equal(table.costMicros('cheap', 1000, 1000), 750)
  t.equal(table.costMicros('org/big:70b', 1, 1), 13)
  t.equal(table.costMicros('unknown', 1000, 100), 4500)
  t.equal(table.costMicros('cheap', 3, 0), 0, '0.45 micro-USD rounds to 0')
})

t.test('the result adds nothing to a deliverable that proposed and delegated nothing', async (t) => {
  t.equal(renderResult('# Plan', { ...emptyRunRecord(), facts: ['x'] }), '# Plan')
})

t.test('tool calls: what the model got wrong, or a refusal, goes back to it as an error', async (t) => {
  const record = emptyRunRecord
  const effects: RunEffects = {
    proposeAction: async (proposed) => ({ ...proposed, actionId: 'a9', status: 'draft', note: null }),
    delegate: async () => {
      throw new BudgetExhaustedError('monthly budget exhausted')
    },
  }
  const call = (name: string, args: string) => callTool(toolsFor(true), { id: '1', name, arguments: args }, effects, record())
  t.match(await call('post_it', '{}'), { malformed: true, content: /no tool named "post_it"/ })
  t.match(await call('remember_fact', '{"fact": '), { malformed: true, content: /not valid JSON/ })
  t.match(await call('remember_fact', '{"fact": 7}'), { malformed: true, content: /invalid arguments for remember_fact: fact: must be string/ })
  t.match(await call('delegate_to_specialist', '{"agentType": "growth-marketer", "instruction": "Do it all"}'), { malformed: true, content: /agentType: must be equal to one of the allowed values/ })
  t.match(await call('delegate_to_specialist', '{"agentType": "seo", "instruction": "Audit the site"}'), { malformed: false, isError: true, content: 'monthly budget exhausted' })
  t.match(await call('propose_action', '{"platform": "x", "action": "post", "summary": "s"}'), { malformed: false, isError: false, content: /^Recorded as action a9: draft/ })
  t.match(
    await callTool(toolsFor(false), { id: '2', name: 'delegate_to_specialist', arguments: '{}' }, effects, record()),
    { malformed: true, content: /the tools are propose_action, remember_fact$/ },
    'a specialist has no delegation tool',
  )
})

t.test('a run is held to its limits, and platforms are named one way', async (t) => {
  const record = emptyRunRecord()
  const effects: RunEffects = { proposeAction: async (proposed) => ({ ...proposed, actionId: proposed.platform, status: 'draft', note: null }), delegate: null }
  const propose = () => callTool(toolsFor(false), { id: '1', name: 'propose_action', arguments: '{"platform": " LinkedIn ", "action": "post", "summary": "s"}' }, effects, record)
  for (let i = 0; i < RUN_LIMITS.proposals; i++) t.equal((await propose()).isError, false)
  t.match(await propose(), { isError: true, malformed: false, content: `this run already proposed an action ${RUN_LIMITS.proposals} times, its limit; go on without` })
  t.equal(record.actions[0]?.platform, 'linkedin')
})

import t from 'tap'
import { monthToDate } from '../../src/commands/create-task/budget.js'
import type { ModelRequestView, ModelReply } from '../fakes/model-server.js'
import { languageModelRig, runToEnd, type TaskView } from '../helpers/language-models.js'
import { eventsOf, streamEvents } from '../helpers/event-log.js'
import { startServers } from '../helpers/servers.js'
import { until } from '../helpers/wait.js'

const servers = await startServers(t)

const SEO_WORK = 'SEO: target "model rocket kits" with a pillar page and six cluster posts.'
const PAID_WORK = 'Paid media: a 3-week Meta campaign at 40 USD a day, lookalikes of past buyers.'

/**
 * The supervisor delegates two parts in one turn, then composes what came back. Each
 * specialist answers only once both are in flight, so the run completes only if the
 * two delegated runs happen in parallel.
 */
function script() {
  let specialistsWaiting = 0
  let release: () => void = () => {}
  const bothInFlight = new Promise<void>((resolve) => {
    release = resolve
  })
  return async (request: ModelRequestView): Promise<ModelReply> => {
    if (request.system.startsWith('You are the Growth Marketer')) {
      if (request.turn === 0) {
        return {
          text: 'I will split this brief.',
          calls: [
            { name: 'delegate_to_specialist', args: { agentType: 'seo', instruction: 'Plan the organic search side of the kit launch' } },
            { name: 'delegate_to_specialist', args: { agentType: 'paid-media', instruction: 'Plan the paid social side of the kit launch' } },
          ],
        }
      }
      return { text: `# Launch plan\n\n${request.toolResults.map((r) => r.content).join('\n\n')}` }
    }
    specialistsWaiting++
    if (specialistsWaiting === 2) release()
    const together = await Promise.race([bothInFlight.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), 5000))])
    if (!together) return { status: 400, error: 'the other specialist never called: the delegated runs were not parallel' }
    return { text: request.system.startsWith('You are the SEO Specialist') ? SEO_WORK : PAID_WORK, usage: { input: 500, output: 100 } }
  }
}

t.test('the growth marketer delegates two parts to specialists in parallel, as linked tasks, and composes their work', async (t) => {
  const rig = await languageModelRig(t, servers, 'openai', script(), { env: { WORKER_CONCURRENCY: '1' } })
  const parent = await runToEnd(rig.caller.api, { sessionId: rig.sessionId, instruction: 'Launch our new rocket kit: organic search and paid social' })

  t.equal(parent.status, 'completed', parent.error ?? '')
  t.match(parent.result, SEO_WORK, 'the composed plan holds the SEO specialist’s work')
  t.match(parent.result, PAID_WORK, 'and the paid media specialist’s')
  t.equal(rig.fake.requests.filter((r) => !r.system.startsWith('You are the Growth Marketer')).length, 2, 'each specialist was called once')
  t.ok(rig.fake.requests[0]?.toolNames.includes('delegate_to_specialist'), 'the supervisor is offered delegation')
  t.notOk(rig.fake.requests.find((r) => r.system.startsWith('You are the SEO'))?.toolNames.includes('delegate_to_specialist'), 'a specialist is not')

  const { body } = await rig.caller.api.get<{ tasks: TaskView[] }>(`/v1/tasks?sessionId=${rig.sessionId}`)
  const children = body.tasks.filter((task) => task.taskType === 'delegated')
  t.same(children.map((c) => c.agentType).sort(), ['paid-media', 'seo'], 'each delegated part is a task of its own')
  for (const child of children) {
    t.equal(child.parentTaskId, parent.id, 'linked to its supervisor task')
    t.equal(child.status, 'completed')
  }
  t.match(parent.result, /## Delegated tasks/)
  for (const child of children) t.match(parent.result, child.id, 'the result names each delegated task')

  const events = await streamEvents(rig.infra, 'MATS_TASKS')
  t.same(
    eventsOf(events, parent.id, 'TaskDelegated')
      .map((e) => (e.data as { childTaskId: string }).childTaskId)
      .sort(),
    children.map((c) => c.id).sort(),
    'the supervisor’s log records each delegation',
  )
  for (const child of children)
    t.same(
      eventsOf(events, child.id).map((e) => e.type),
      ['TaskCreated', 'TaskStarted', 'TaskCompleted'],
      'a delegated task has the life of any task',
    )

  // Each task pays for its own tokens: the supervisor 2 x (1000 in, 200 out), each specialist 500 in, 100 out.
  const costs = [parent.id, ...children.map((c) => c.id)].map((id) => (eventsOf(events, id, 'TaskCompleted')[0]?.data as { costMicros: number } | undefined)?.costMicros ?? 0)
  t.same(costs, [2 * 3600, 1800, 1800])
  const spend = await until('all three costs in the spend read model', async () => {
    const now = await monthToDate(rig.infra, rig.caller.account.id, new Date())
    return now.spentMicros === 2 * 3600 + 2 * 1800 && now
  })
  t.equal(spend.reservedMicros, 0, 'no reservation is left behind')
})

t.test('a turn of many parallel tool calls: every delegation and action is recorded, and every fact the specialists learned', async (t) => {
  const specialists = ['seo', 'paid-media', 'email-marketing', 'creative', 'cro'] as const
  const rig = await languageModelRig(t, servers, 'anthropic', (request) => {
    if (!request.system.startsWith('You are the Growth Marketer')) {
      return request.turn === 0
        ? {
            text: '',
            calls: [
              { name: 'remember_fact', args: { fact: `Learned by ${request.brief}` } },
              { name: 'propose_action', args: { platform: 'website', action: 'edit page', summary: request.brief } },
            ],
          }
        : { text: `Done: ${request.brief}` }
    }
    if (request.turn > 0) return { text: `# Plan\n\n${request.toolResults.length} parts came back.` }
    return {
      text: '',
      calls: [
        ...specialists.map((agentType) => ({ name: 'delegate_to_specialist', args: { agentType, instruction: `The ${agentType} part` } })),
        ...Array.from({ length: 6 }, (_, i) => ({ name: 'propose_action', args: { platform: 'linkedin', action: 'publish post', summary: `Post ${i}` } })),
      ],
    }
  })
  const parent = await runToEnd(rig.caller.api, { sessionId: rig.sessionId, instruction: 'Everything at once' })
  t.equal(parent.status, 'completed', parent.error ?? '')
  t.match(parent.result, /11 parts came back/)
  const events = await streamEvents(rig.infra, 'MATS_TASKS')
  t.equal(eventsOf(events, parent.id, 'TaskDelegated').length, 5)
  t.equal(eventsOf(events, parent.id, 'TaskActionProposed').length, 6)
  const children = events.filter((e) => e.type === 'TaskCreated' && (e.data as { parentTaskId: string | null }).parentTaskId === parent.id).map((e) => e.aggregateId)
  for (const child of children)
    t.same(
      eventsOf(events, child).map((e) => e.type),
      ['TaskCreated', 'TaskStarted', 'TaskActionProposed', 'TaskCompleted'],
    )
  // A child the worker's own consumer claimed first is awaited only to its TaskCompleted; its facts follow that.
  const learned = await until('five facts in the session', async () => {
    const facts = eventsOf(await streamEvents(rig.infra, 'MATS_SESSIONS'), rig.sessionId, 'SessionFactLearned')
    return facts.length >= specialists.length && facts
  })
  t.same(learned.map((e) => (e.data as { fact: string }).fact).sort(), specialists.map((a) => `Learned by The ${a} part`).sort(), 'five children ending together all teach the session')
})

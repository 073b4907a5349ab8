import { randomUUID } from 'node:crypto'
import t from 'tap'
import type { AgentType } from '../../src/domain/agents/catalogue.js'
import { Task, type TaskEvent } from '../../src/domain/tasks/task.js'
import { taskFingerprint } from '../../src/domain/tasks/identity.js'
import { aCaller, aSessionBody, type Caller } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'
import { until } from '../helpers/wait.js'

const servers = await startServers(t)
// No worker: the tasks these tests create through the API stay pending (reserved).
const service = await startTestService(t, servers, { roles: ['api', 'projector'] })
const { infra } = service
/** Sized for a loaded machine: the split follows the projector. */
const PROJECTOR_DEADLINE_MS = 60_000

interface UsageBody {
  usage: {
    month: string
    budgetUsd: number
    spentUsd: number
    reservedUsd: number
    remainingUsd: number
    byAgent: { agentType: string; spentUsd: number; tasks: number }[]
    byDay: { date: string; spentUsd: number; tasks: number }[]
  }
}

/** A task of `agentType` billed to `month`, created and ended at `endedAt`, that cost `costMicros`: appended straight to the log. */
async function anEndedTask(caller: Caller, agentType: AgentType, costMicros: number, month: string, endedAt: Date): Promise<void> {
  const sessionId = randomUUID()
  const instruction = `A brief ${randomUUID()}`
  const billing = { billingMonth: month, reservedMicros: 10_000 }
  const drafts: TaskEvent[] = [
    {
      type: 'TaskCreated',
      data: {
        sessionId,
        agentType,
        taskType: 'instruction',
        instruction,
        title: null,
        priority: 'normal',
        fingerprint: taskFingerprint(sessionId, agentType, instruction),
        parentTaskId: null,
        ...billing,
      },
    },
    { type: 'TaskStarted', data: { workerId: 'elsewhere' } },
    { type: 'TaskCompleted', data: { result: 'done', usage: { provider: 'openai', model: 'm', inputTokens: 1, outputTokens: 1 }, costMicros, learnedFacts: [], agentType, ...billing } },
  ]
  const metadata = { correlationId: randomUUID(), causationId: null, keyId: null }
  await infra.events.append(Task, { accountId: caller.account.id, aggregateId: randomUUID() }, drafts, { expectedVersion: 0, metadata, now: endedAt })
}

const usageOf = (caller: Caller, query = '') => caller.api.get<UsageBody & { error: string }>(`/v1/usage${query}`)

t.test('given tasks of two agents that ended on different days of a past month, when its usage is asked for, then spend by agent and by day add up to the total, every day listed', async (t) => {
  const caller = await aCaller(infra, service.url, { monthlyBudgetUsd: 10 })
  await anEndedTask(caller, 'seo', 250_000, '2026-02', new Date('2026-02-03T10:00:00Z'))
  await anEndedTask(caller, 'creative', 100_000, '2026-02', new Date('2026-02-03T23:59:00Z'))
  await anEndedTask(caller, 'seo', 50_000, '2026-02', new Date('2026-02-20T08:00:00Z'))
  // Billed to February (created then), ended in March: February's last day.
  await anEndedTask(caller, 'cro', 1_000, '2026-02', new Date('2026-03-01T00:00:05Z'))

  const { usage } = await until(
    'the projector to apply all four',
    async () => {
      const res = await usageOf(caller, '?month=2026-02')
      return res.status === 200 && res.body.usage.byDay.reduce((n, d) => n + d.tasks, 0) === 4 && res.body.usage.spentUsd === 0.401 && res.body
    },
    PROJECTOR_DEADLINE_MS,
  )
  t.match(usage, { month: '2026-02', budgetUsd: 10, spentUsd: 0.401, reservedUsd: 0, remainingUsd: 9.599 })
  t.same(usage.byAgent, [
    { agentType: 'seo', spentUsd: 0.3, tasks: 2 },
    { agentType: 'creative', spentUsd: 0.1, tasks: 1 },
    { agentType: 'cro', spentUsd: 0.001, tasks: 1 },
  ])
  t.equal(usage.byDay.length, 28, 'every day of February 2026')
  t.same(
    usage.byDay.filter((d) => d.tasks > 0),
    [
      { date: '2026-02-03', spentUsd: 0.35, tasks: 2 },
      { date: '2026-02-20', spentUsd: 0.05, tasks: 1 },
      { date: '2026-02-28', spentUsd: 0.001, tasks: 1 },
    ],
  )
})

t.test('given spend this month and a pending task, when usage is asked for without a month, then this month against the budget, reservations included; another account sees none of it', async (t) => {
  const caller = await aCaller(infra, service.url, { monthlyBudgetUsd: 5 })
  const stranger = await aCaller(infra, service.url)
  const now = new Date()
  const month = now.toISOString().slice(0, 7)
  await anEndedTask(caller, 'paid-media', 1_500_000, month, now)
  const sessionId = (await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
  t.equal((await caller.api.post('/v1/tasks', { sessionId, agentType: 'seo', instruction: 'Audit the blog titles' })).status, 201)
  const reservation = infra.config.TASK_RESERVATION_USD

  const { usage } = await until(
    'the split to show the ended task',
    async () => {
      const res = await usageOf(caller)
      return res.body.usage?.byAgent.length === 1 && res.body
    },
    PROJECTOR_DEADLINE_MS,
  )
  t.match(usage, { month, budgetUsd: 5, spentUsd: 1.5, reservedUsd: reservation, remainingUsd: 5 - 1.5 - reservation })
  t.same(usage.byAgent, [{ agentType: 'paid-media', spentUsd: 1.5, tasks: 1 }])
  t.same(usage.byDay.at(-1), { date: now.toISOString().slice(0, 10), spentUsd: 1.5, tasks: 1 }, 'today last')
  t.equal(usage.byDay.length, now.getUTCDate(), 'the days of the month up to today')

  const theirs = (await usageOf(stranger)).body.usage
  t.match(theirs, { spentUsd: 0, reservedUsd: 0, byAgent: [] }, 'another account: nothing of it')
})

t.test('given a malformed month or an unknown parameter, then 400 naming it', async (t) => {
  const caller = await aCaller(infra, service.url)
  for (const [query, error] of [
    ['?month=2026-13', /^query\.month: must be a month, YYYY-MM/],
    ['?month=November', /^query\.month: must be a month, YYYY-MM/],
    ['?agent=seo', /agent/],
  ] as const) {
    const res = await usageOf(caller, query)
    t.equal(res.status, 400, `${query}: 400`)
    t.match(res.body, { error, code: 'invalid_request' })
  }
})

import { randomUUID } from 'node:crypto'
import t from 'tap'
import { monthToDate } from '../../src/commands/create-task/budget.js'
import { ApiClient } from '../helpers/http.js'
import { aCaller, aSessionBody } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'
import { until } from '../helpers/wait.js'

// $0.05 of budget at $0.01 reserved per task in flight: five tasks may be in flight at once.
const BUDGET_USD = 0.05
const SLOTS = 5
const RESERVATION = { TASK_RESERVATION_USD: '0.01' }

const servers = await startServers(t)
// No worker: tasks stay pending, so every admitted one holds its reservation.
const first = await startTestService(t, servers, { roles: ['api', 'projector'], env: RESERVATION })
const second = await startTestService(t, servers, { roles: ['api'], env: RESERVATION })

async function aBudgetedSession(url: string) {
  const caller = await aCaller(first.infra, url, { monthlyBudgetUsd: BUDGET_USD })
  const session = await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())
  return { ...caller, sessionId: session.body.session.id }
}

const brief = (sessionId: string) => ({ sessionId, instruction: `Plan the launch posts ${randomUUID()}` })

function statusCounts(statuses: readonly number[]): Record<number, number> {
  const counts: Record<number, number> = {}
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1
  return counts
}

t.test('given one API process, when 20 POSTs race for 5 reservations, then exactly 5 are admitted', async (t) => {
  const { api, account, sessionId } = await aBudgetedSession(first.url)
  const statuses = await Promise.all(Array.from({ length: 20 }, async () => (await api.post('/v1/tasks', brief(sessionId))).status))
  t.same(statusCounts(statuses), { 201: SLOTS, 402: 20 - SLOTS }, 'decisions in one process see each other: no overshoot')
  const spend = await until('the reservations to reach the spend read model', async () => {
    const now = await monthToDate(first.infra, account.id, new Date())
    return now.reservedMicros === SLOTS * 10_000 && now
  })
  t.equal(spend.spentMicros, 0)
})

t.test('given two API processes, when each takes 10 racing POSTs for 5 reservations, then the overshoot stays within the documented bound', async (t) => {
  const caller = await aBudgetedSession(first.url)
  const other = new ApiClient(second.url, caller.key.key)
  const racing = [...Array.from({ length: 10 }, () => caller.api), ...Array.from({ length: 10 }, () => other)]
  const statuses = await Promise.all(racing.map(async (api) => (await api.post('/v1/tasks', brief(caller.sessionId))).status))
  const admitted = statuses.filter((s) => s === 201).length
  t.ok(admitted >= SLOTS, `${admitted} admitted: at least the ${SLOTS} the budget holds`)
  // docs/tasks.md: each process admits at most what it sees remaining, so two processes at most twice that.
  t.ok(admitted <= 2 * SLOTS, `${admitted} admitted: at most ${2 * SLOTS} (each process at most what it saw remaining)`)
  t.same(Object.keys(statusCounts(statuses)).sort(), ['201', '402'], 'every other request is a 402')
  for (const api of [caller.api, other]) {
    t.equal((await api.post('/v1/tasks', brief(caller.sessionId))).status, 402, 'once the race is over, every process refuses')
  }
})

t.test('given a task created on one process, when the other process checks the budget at once, then the reservation is already counted', async (t) => {
  const caller = await aBudgetedSession(first.url)
  const other = new ApiClient(second.url, caller.key.key)
  for (let i = 0; i < SLOTS; i++) {
    const api = i % 2 === 0 ? caller.api : other
    t.equal((await api.post('/v1/tasks', brief(caller.sessionId))).status, 201, `task ${i + 1} of ${SLOTS}, alternating processes`)
  }
  t.equal((await other.post('/v1/tasks', brief(caller.sessionId))).status, 402, 'the sixth, on either process, is refused')
  t.equal((await caller.api.post('/v1/tasks', brief(caller.sessionId))).status, 402)
})

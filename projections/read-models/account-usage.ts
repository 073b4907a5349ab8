import type { Recorded } from '../../src/domain/message.js'
import type { TaskCompleted, TaskFailed } from '../../src/domain/tasks/task.js'
import { defineProjection } from '../engine/projection.js'
import { spendId } from './account-spend.js'

/** What ended tasks cost, and how many ended, in one bucket (an agent or a day). */
export interface SpendBucket {
  readonly spentMicros: number
  readonly tasks: number
}

/**
 * An account's spend in one billing month split by agent and by UTC day, for charts
 * (GET /v1/usage); same id as its `account_spend` document. A task counts when it ends, on
 * the day it ended, in the month it was billed to (the month of its creation): a task that ends
 * after its month is over counts on that month's last day. Small and bounded: ten agents, 31 days.
 */
export interface AccountUsageDoc {
  readonly _id: string
  readonly accountId: string
  readonly month: string
  /** By agent type; tasks that ended before terminal events named their agent are in no bucket. */
  readonly byAgent: Readonly<Record<string, SpendBucket>>
  /** By UTC day, `YYYY-MM-DD`. */
  readonly byDay: Readonly<Record<string, SpendBucket>>
}

export const accountUsageProjection = defineProjection<AccountUsageDoc, Recorded<TaskCompleted | TaskFailed>>({
  name: 'account_usage',
  stream: 'MATS_TASKS',
  canHandle: ['TaskCompleted', 'TaskFailed'],
  indexes: [],
  inline: false,
  startedBy: [],
  docId: (event) => spendId(event.accountId, event.data.billingMonth),
  evolve(doc, event) {
    const month = event.data.billingMonth
    const current = doc ?? { _id: spendId(event.accountId, month), accountId: event.accountId, month, byAgent: {}, byDay: {} }
    const cost = event.data.costMicros
    const agent = event.data.agentType
    return {
      ...current,
      byAgent: agent ? add(current.byAgent, agent, cost) : current.byAgent,
      byDay: add(current.byDay, dayWithin(month, event.occurredAt), cost),
    }
  },
})

function add(buckets: Readonly<Record<string, SpendBucket>>, key: string, costMicros: number): Record<string, SpendBucket> {
  const bucket = buckets[key] ?? { spentMicros: 0, tasks: 0 }
  return { ...buckets, [key]: { spentMicros: bucket.spentMicros + costMicros, tasks: bucket.tasks + 1 } }
}

/** The UTC day of `at`, or the last day of `month` when `at` is later (a task billed to a month that ended while it ran). */
export function dayWithin(month: string, at: string): string {
  const day = at.slice(0, 10)
  return day.startsWith(month) ? day : lastDayOf(month)
}

export function lastDayOf(month: string): string {
  const [year, mm] = month.split('-').map(Number)
  const last = new Date(Date.UTC(year ?? 1970, mm ?? 1, 0))
  return last.toISOString().slice(0, 10)
}

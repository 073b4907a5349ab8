import type { Recorded } from '../../src/domain/message.js'
import type { TaskCompleted, TaskCreated, TaskFailed } from '../../src/domain/tasks/task.js'
import { defineProjection } from '../engine/projection.js'

/**
 * Month-to-date spend per account and UTC month (`<accountId>:<YYYY-MM>`). A task
 * reserves a fixed amount when created; when it ends, the reservation is released and
 * its actual cost is added. Spend for the budget check is `spentMicros + reservedMicros`.
 */
export interface AccountSpendDoc {
  readonly _id: string
  readonly accountId: string
  readonly month: string
  readonly spentMicros: number
  readonly reservedMicros: number
  readonly tasksCreated: number
  readonly tasksFinished: number
}

export const spendId = (accountId: string, month: string) => `${accountId}:${month}`

export const accountSpendProjection = defineProjection<AccountSpendDoc, Recorded<TaskCreated | TaskCompleted | TaskFailed>>({
  name: 'account_spend',
  stream: 'MATS_TASKS',
  canHandle: ['TaskCreated', 'TaskCompleted', 'TaskFailed'],
  indexes: [],
  inline: false,
  startedBy: [],
  docId: (event) => spendId(event.accountId, event.data.billingMonth),
  evolve(doc, event) {
    const month = event.data.billingMonth
    const current = doc ?? empty(event.accountId, month)
    if (event.type === 'TaskCreated') {
      return { ...current, reservedMicros: current.reservedMicros + event.data.reservedMicros, tasksCreated: current.tasksCreated + 1 }
    }
    return {
      ...current,
      reservedMicros: Math.max(0, current.reservedMicros - event.data.reservedMicros),
      spentMicros: current.spentMicros + event.data.costMicros,
      tasksFinished: current.tasksFinished + 1,
    }
  },
})

function empty(accountId: string, month: string): AccountSpendDoc {
  return { _id: spendId(accountId, month), accountId, month, spentMicros: 0, reservedMicros: 0, tasksCreated: 0, tasksFinished: 0 }
}

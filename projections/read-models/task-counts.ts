import type { Recorded } from '../../src/domain/message.js'
import { failedBeforeStart, type TaskCompleted, type TaskCreated, type TaskFailed, type TaskStarted, type TaskStatus } from '../../src/domain/tasks/task.js'
import { defineProjection } from '../engine/projection.js'

/**
 * How many of an account's tasks are in each status: one small document per account, moved
 * by each transition, so that counts (GET /v1/tasks/counts, the `total` of an unfiltered or
 * status-filtered list) cost one read by `_id` whatever the account's history (invariant 9).
 */
export type TaskCountsDoc = { readonly _id: string } & Readonly<Record<TaskStatus, number>>

type Transition = Recorded<TaskCreated | TaskStarted | TaskCompleted | TaskFailed>

export const taskCountsProjection = defineProjection<TaskCountsDoc, Transition>({
  name: 'task_counts',
  awaited: true,
  stream: 'MATS_TASKS',
  canHandle: ['TaskCreated', 'TaskStarted', 'TaskCompleted', 'TaskFailed'],
  indexes: [],
  inline: false,
  startedBy: [],
  docId: (event) => event.accountId,
  evolve(doc, event) {
    const counts = doc ?? { _id: event.accountId, pending: 0, running: 0, completed: 0, failed: 0 }
    const [from, to] = move(event)
    return { ...counts, ...(from ? { [from]: counts[from] - 1 } : {}), [to]: counts[to] + 1 }
  },
})

/** The status a transition takes one task out of (none for a new one) and the one it puts it in. */
function move(event: Transition): [TaskStatus | null, TaskStatus] {
  switch (event.type) {
    case 'TaskCreated':
      return [null, 'pending']
    case 'TaskStarted':
      return ['pending', 'running']
    case 'TaskCompleted':
      return ['running', 'completed']
    case 'TaskFailed':
      return [failedBeforeStart(event.data) ? 'pending' : 'running', 'failed']
  }
}

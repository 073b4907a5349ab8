import type { Recorded, RecordedEvent } from '../../src/domain/message.js'
import type { ActionEvent, ActionLifecycleStatus } from '../../src/domain/actions/action.js'
import type { TaskActionProposed } from '../../src/domain/tasks/task.js'
import { defineProjection, foldHistory } from '../engine/projection.js'

/** One proposed write action: what the run proposed, then what became of it. */
export interface ActionDoc {
  readonly _id: string
  readonly accountId: string
  readonly taskId: string
  readonly platform: string
  readonly action: string
  readonly summary: string
  readonly content: string | null
  readonly status: ActionLifecycleStatus
  /** Why the session's autonomy left it as it is, or what the platform's connector answered. */
  readonly note: string | null
  /** The reason given with the decision, if any. */
  readonly reason: string | null
  readonly proposedAt: string
  readonly decidedAt: string | null
}

type ActionsEvent = Recorded<TaskActionProposed> | Recorded<ActionEvent>

/**
 * Actions by task and pending approvals by account. The proposal is a task event and the
 * decision an action event, both in MATS_TASKS, so one projection applies them in log order.
 * Not inline: a decision's command reads this document, and the worker's append of a proposal
 * must not wait on it (the readers wait for the projector instead, src/queries/actions.ts).
 */
export const actionsProjection = defineProjection<ActionDoc, ActionsEvent>({
  name: 'actions',
  awaited: true,
  stream: 'MATS_TASKS',
  canHandle: ['TaskActionProposed', 'ActionApproved', 'ActionRejected', 'ActionExecuted', 'ActionExecutionFailed'],
  indexes: [
    { key: { accountId: 1, taskId: 1, proposedAt: 1, _id: 1 }, name: 'by_task_in_order' },
    { key: { accountId: 1, status: 1, proposedAt: -1, _id: -1 }, name: 'by_status_newest' },
  ],
  inline: false,
  startedBy: ['TaskActionProposed'],
  docId: (event) => (event.type === 'TaskActionProposed' ? event.data.actionId : event.aggregateId),
  evolve(doc, event) {
    if (event.type === 'TaskActionProposed') {
      const { actionId, platform, action, summary, content, status, note } = event.data
      return { _id: actionId, accountId: event.accountId, taskId: event.aggregateId, platform, action, summary, content, status, note, reason: null, proposedAt: event.occurredAt, decidedAt: null }
    }
    if (!doc) throw new Error(`${event.type} before TaskActionProposed for action ${event.aggregateId}`)
    switch (event.type) {
      case 'ActionApproved':
        return { ...doc, status: 'approved', reason: event.data.reason, decidedAt: event.occurredAt }
      case 'ActionRejected':
        return { ...doc, status: 'rejected', reason: event.data.reason, decidedAt: event.occurredAt }
      case 'ActionExecuted':
        return { ...doc, status: 'executed', note: `platform reference ${event.data.reference}` }
      case 'ActionExecutionFailed':
        return { ...doc, status: 'execution_failed', note: event.data.error }
    }
  },
})

/** One action folded straight from its events (its proposal on the task, then its own), as the read model would hold it. */
export const actionDocFromHistory = (events: readonly RecordedEvent[]): ActionDoc | null => foldHistory<ActionDoc>(actionsProjection, events)

import type { Recorded } from '../../src/domain/message.js'
import type { AgentType } from '../../src/domain/agents/catalogue.js'
import type { ActionStatus } from '../../src/domain/actions/proposed-action.js'
import type { TaskRerunsEvent } from '../../src/domain/tasks/reruns.js'
import type { Priority, TaskEvent, TaskStatus, TaskType, TaskUsage } from '../../src/domain/tasks/task.js'
import { defineProjection, foldHistory } from '../engine/projection.js'

export interface TaskDoc {
  readonly _id: string
  readonly accountId: string
  readonly sessionId: string
  readonly agentType: AgentType
  readonly taskType: TaskType
  readonly status: TaskStatus
  readonly priority: Priority
  readonly title: string | null
  readonly instruction: string
  readonly parentTaskId: string | null
  /** The task this one re-runs; absent on documents stored before re-runs existed (read it as null). */
  readonly rerunOf?: string | null
  /** The re-runs of this task, oldest first; absent on documents stored before re-runs existed (read it as []). */
  readonly reruns?: readonly string[]
  /** The schedule whose tick created this task, and the tick; absent on other tasks (read them as null). */
  readonly scheduleId?: string | null
  readonly scheduledFor?: string | null
  readonly result: string | null
  readonly error: string | null
  readonly usage: TaskUsage | null
  readonly costMicros: number
  /** The write actions the run proposed, as the session's autonomy left them. */
  readonly actions: readonly TaskActionSummary[]
  readonly createdAt: string
  readonly startedAt: string | null
  readonly completedAt: string | null
}

export interface TaskActionSummary {
  readonly actionId: string
  readonly platform: string
  readonly action: string
  readonly summary: string
  readonly status: ActionStatus
}

export const tasksProjection = defineProjection<TaskDoc, Recorded<TaskEvent | TaskRerunsEvent>>({
  name: 'tasks',
  awaited: true,
  stream: 'MATS_TASKS',
  canHandle: ['TaskCreated', 'TaskStarted', 'TaskActionProposed', 'TaskCompleted', 'TaskFailed', 'TaskRerunCreated'],
  // Newest first within an account, optionally narrowed by one filter (a created-from/to range rides on any of them); `_id` breaks ties.
  indexes: [
    { key: { accountId: 1, createdAt: -1, _id: -1 }, name: 'by_account_newest' },
    { key: { accountId: 1, sessionId: 1, createdAt: -1, _id: -1 }, name: 'by_session_newest' },
    { key: { accountId: 1, status: 1, createdAt: -1, _id: -1 }, name: 'by_status_newest' },
    { key: { accountId: 1, agentType: 1, createdAt: -1, _id: -1 }, name: 'by_agent_newest' },
    { key: { accountId: 1, priority: 1, createdAt: -1, _id: -1 }, name: 'by_priority_newest' },
    { key: { accountId: 1, scheduleId: 1, createdAt: -1, _id: -1 }, name: 'by_schedule_newest' },
  ],
  // Tasks are the hot path: the projector alone writes them, and reads fall back to the log (src/queries/read-task.ts).
  inline: false,
  startedBy: ['TaskCreated'],
  // A re-run's TaskRerunCreated on an ended task is rare: it reads the document.
  settledBy: ['TaskCompleted', 'TaskFailed'],
  // A TaskRerunCreated is keyed by the task re-run (category `reruns`): its document.
  docId: (event) => event.aggregateId,
  evolve(doc, event) {
    if (event.type === 'TaskCreated') {
      const { sessionId, agentType, taskType, priority, title, instruction, parentTaskId } = event.data
      return {
        _id: event.aggregateId,
        accountId: event.accountId,
        sessionId,
        agentType,
        taskType,
        priority,
        title,
        instruction,
        parentTaskId,
        rerunOf: event.data.rerunOf ?? null,
        reruns: [],
        scheduleId: event.data.scheduleId ?? null,
        scheduledFor: event.data.scheduledFor ?? null,
        status: 'pending',
        result: null,
        error: null,
        usage: null,
        costMicros: 0,
        actions: [],
        createdAt: event.occurredAt,
        startedAt: null,
        completedAt: null,
      }
    }
    if (!doc) throw new Error(`${event.type} before TaskCreated for ${event.aggregateId}`)
    switch (event.type) {
      case 'TaskStarted':
        return { ...doc, status: 'running', startedAt: event.occurredAt }
      case 'TaskActionProposed': {
        const { actionId, platform, action, summary, status } = event.data
        return { ...doc, actions: [...doc.actions, { actionId, platform, action, summary, status }] }
      }
      case 'TaskDelegated':
      case 'TaskCancellationRequested':
        return doc
      case 'TaskCompleted':
        return { ...doc, status: 'completed', result: event.data.result, usage: event.data.usage, costMicros: event.data.costMicros, completedAt: event.occurredAt }
      case 'TaskFailed':
        return { ...doc, status: 'failed', error: event.data.error, usage: event.data.usage, costMicros: event.data.costMicros, completedAt: event.occurredAt }
      case 'TaskRerunCreated':
        return { ...doc, reruns: withRerun(doc.reruns ?? [], event.data.rerunTaskId) }
    }
  },
})

function withRerun(reruns: readonly string[], taskId: string): readonly string[] {
  return reruns.includes(taskId) ? reruns : [...reruns, taskId]
}

/** The same document folded straight from the log: used when the read model has not caught up. */
export const taskDocFromHistory = (events: readonly Recorded<TaskEvent | TaskRerunsEvent>[]): TaskDoc | null => foldHistory<TaskDoc>(tasksProjection, events)

import type { AgentType } from '../agents/catalogue.js'
import { ConflictError } from '../errors.js'
import type { Aggregate, EventDraft } from '../message.js'

export const TASK_STATUSES = ['pending', 'running', 'completed', 'failed'] as const
export type TaskStatus = (typeof TASK_STATUSES)[number]
export const PRIORITIES = ['low', 'normal', 'high'] as const
export type Priority = (typeof PRIORITIES)[number]
/** `instruction`: created by a caller from a brief; `delegated`: a part of a brief the supervisor handed to a specialist. */
export const TASK_TYPES = ['instruction', 'delegated'] as const
export type TaskType = (typeof TASK_TYPES)[number]
export const FAILURE_REASONS = ['agent_error', 'timeout', 'worker_lost', 'worker_shutdown'] as const
export type FailureReason = (typeof FAILURE_REASONS)[number]

export interface TaskUsage { readonly provider: string; readonly model: string; readonly inputTokens: number; readonly outputTokens: number }

/** What the spend read model needs to move the task's reservation into its actual cost. */
interface Billing { readonly billingMonth: string; readonly reservedMicros: number }

export type TaskCreated = EventDraft<'TaskCreated', Billing & {
  sessionId: string
  agentType: AgentType
  taskType: TaskType
  instruction: string
  title: string | null
  priority: Priority
  /** Identifies identical briefs in a session (see identity.ts). */
  fingerprint: string
  parentTaskId: string | null
}>
export type TaskStarted = EventDraft<'TaskStarted', { workerId: string }>
export type TaskCompleted = EventDraft<'TaskCompleted', Billing & { result: string; usage: TaskUsage; costMicros: number }>
export type TaskFailed = EventDraft<'TaskFailed', Billing & { error: string; reason: FailureReason; usage: TaskUsage | null; costMicros: number }>
export type TaskEvent = TaskCreated | TaskStarted | TaskCompleted | TaskFailed

type Created = TaskCreated['data']
export type TaskState =
  | { readonly status: 'absent' }
  | ({ readonly status: 'pending' } & Created)
  | ({ readonly status: 'running'; readonly workerId: string } & Created)
  | ({ readonly status: 'completed' | 'failed' } & Created)

export const Task: Aggregate<TaskState, TaskEvent> = {
  category: 'task',
  initialState: { status: 'absent' },
  versions: { TaskCreated: 1, TaskStarted: 1, TaskCompleted: 1, TaskFailed: 1 },
  evolve(state, event) {
    switch (event.type) {
      case 'TaskCreated':
        return { status: 'pending', ...event.data }
      case 'TaskStarted':
        return state.status === 'pending' ? { ...state, status: 'running', workerId: event.data.workerId } : state
      case 'TaskCompleted':
        return state.status === 'running' ? { ...state, status: 'completed' } : state
      case 'TaskFailed':
        return state.status === 'running' ? { ...state, status: 'failed' } : state
    }
  },
}

export function decideCreateTask(command: Created, state: TaskState): TaskEvent[] {
  if (state.status !== 'absent') throw new ConflictError('task already exists')
  return [{ type: 'TaskCreated', data: command }]
}

/** Thrown when a worker tries to claim a task that is no longer pending. */
export class TaskNotClaimableError extends ConflictError {
  override readonly name = 'TaskNotClaimableError'
  constructor(readonly status: TaskStatus | 'absent') {
    super(`task is ${status}, not pending`)
  }
}

export function decideStartTask(command: { workerId: string }, state: TaskState): TaskEvent[] {
  if (state.status !== 'pending') throw new TaskNotClaimableError(state.status)
  return [{ type: 'TaskStarted', data: { workerId: command.workerId } }]
}

export type FinishTask =
  | { readonly outcome: 'completed'; readonly result: string; readonly usage: TaskUsage; readonly costMicros: number }
  | { readonly outcome: 'failed'; readonly error: string; readonly reason: FailureReason; readonly usage: TaskUsage | null; readonly costMicros: number }

/** Only a running task ends, and it ends once: invariant 3. */
export function decideFinishTask(command: FinishTask, state: TaskState): TaskEvent[] {
  if (state.status !== 'running') throw new ConflictError(`task is ${state.status}; only a running task can finish`)
  const billing = { billingMonth: state.billingMonth, reservedMicros: state.reservedMicros }
  if (command.outcome === 'completed') {
    return [{ type: 'TaskCompleted', data: { result: command.result, usage: command.usage, costMicros: command.costMicros, ...billing } }]
  }
  return [{ type: 'TaskFailed', data: { error: command.error, reason: command.reason, usage: command.usage, costMicros: command.costMicros, ...billing } }]
}

import { ConflictError, NotFoundError } from '../errors.js'
import type { EventData } from '../events/common.js'
import type * as schemas from '../events/tasks.js'
import type { Aggregate, EventDraft } from '../message.js'

export const TASK_STATUSES = ['pending', 'running', 'completed', 'failed'] as const
export type TaskStatus = (typeof TASK_STATUSES)[number]
/** How a task ends, once: the statuses it never leaves, each with the event that puts it there. */
const ENDINGS = { completed: 'TaskCompleted', failed: 'TaskFailed' } as const satisfies Partial<Record<TaskStatus, string>>
export type TerminalStatus = keyof typeof ENDINGS
const ENDING_EVENTS: ReadonlySet<string> = new Set(Object.values(ENDINGS))
/** Whether a task with this status has ended (completed or failed). */
export const isTerminal = (status: string): status is TerminalStatus => Object.hasOwn(ENDINGS, status)
/** Whether this event type ends a task (TaskCompleted or TaskFailed). */
export const endsTask = (eventType: string): boolean => ENDING_EVENTS.has(eventType)
export const PRIORITIES = ['low', 'normal', 'high'] as const
export type Priority = (typeof PRIORITIES)[number]
/** `instruction`: created by a caller from a brief; `delegated`: a part of a brief the supervisor handed to a specialist. */
export const TASK_TYPES = ['instruction', 'delegated'] as const
export type TaskType = (typeof TASK_TYPES)[number]
/**
 * `agent_error`: the agent could not produce a result (e.g. it kept sending malformed tool calls);
 * `provider_error`: the language model could not be reached or refused, after retries;
 * `step_limit`: the run used all its steps; `timeout`: it used all its time;
 * `parent_ended`: a delegated run whose supervising task ended first;
 * `cancelled`: the caller cancelled it (or its supervising task).
 */
export const FAILURE_REASONS = ['agent_error', 'provider_error', 'step_limit', 'timeout', 'parent_ended', 'worker_lost', 'worker_shutdown', 'cancelled'] as const
export type FailureReason = (typeof FAILURE_REASONS)[number]

// The data of each event is its TypeBox schema's (src/domain/events/tasks.ts): one source for the types, validation on read and docs/asyncapi.yaml.
export type TaskUsage = EventData<typeof schemas.Usage>

/** `fingerprint` identifies identical briefs in a session (see identity.ts). */
export type TaskCreated = EventDraft<'TaskCreated', EventData<typeof schemas.TaskCreatedData>>
export type TaskStarted = EventDraft<'TaskStarted', EventData<typeof schemas.TaskStartedData>>
/** One write action the agent proposed during the run, and what the session's autonomy made of it. */
export type TaskActionProposed = EventDraft<'TaskActionProposed', EventData<typeof schemas.TaskActionProposedData>>
/** The supervisor handed part of the brief to a specialist, as the task `childTaskId`. */
export type TaskDelegated = EventDraft<'TaskDelegated', EventData<typeof schemas.TaskDelegatedData>>
/** `learnedFacts` are durable facts about the company for the session; absent on tasks from before they existed. */
export type TaskCompleted = EventDraft<'TaskCompleted', EventData<typeof schemas.TaskCompletedData>>
export type TaskFailed = EventDraft<'TaskFailed', EventData<typeof schemas.TaskFailedData>>
/** The caller asked to stop a running task; the worker running it aborts the run and records how it ended. */
export type TaskCancellationRequested = EventDraft<'TaskCancellationRequested', EventData<typeof schemas.TaskCancellationRequestedData>>
export type TaskEvent = TaskCreated | TaskStarted | TaskActionProposed | TaskDelegated | TaskCancellationRequested | TaskCompleted | TaskFailed

type Created = TaskCreated['data']
/** What a run did that outlives it: the specialists it delegated to and the actions it proposed. */
interface RunRecord {
  readonly delegatedTaskIds: readonly string[]
  readonly actionIds: readonly string[]
}
export type TaskState =
  | { readonly status: 'absent' }
  | ({ readonly status: 'pending' } & Created)
  | ({ readonly status: 'running'; readonly workerId: string; readonly cancellationRequested?: true } & Created & RunRecord)
  | ({ readonly status: 'completed'; readonly learnedFacts: readonly string[] } & Created & RunRecord)
  | ({ readonly status: 'failed' } & Created & RunRecord)

export const Task: Aggregate<TaskState, TaskEvent> = {
  category: 'task',
  initialState: { status: 'absent' },
  versions: { TaskCreated: 1, TaskStarted: 1, TaskActionProposed: 1, TaskDelegated: 1, TaskCancellationRequested: 1, TaskCompleted: 1, TaskFailed: 1 },
  evolve(state, event) {
    switch (event.type) {
      case 'TaskCreated':
        return { status: 'pending', ...event.data }
      case 'TaskStarted':
        return state.status === 'pending' ? { ...state, status: 'running', workerId: event.data.workerId, delegatedTaskIds: [], actionIds: [] } : state
      case 'TaskActionProposed':
        return state.status === 'running' ? { ...state, actionIds: [...state.actionIds, event.data.actionId] } : state
      case 'TaskDelegated':
        return state.status === 'running' ? { ...state, delegatedTaskIds: [...state.delegatedTaskIds, event.data.childTaskId] } : state
      case 'TaskCancellationRequested':
        return state.status === 'running' ? { ...state, cancellationRequested: true } : state
      case 'TaskCompleted':
        return state.status === 'running' ? { ...state, status: 'completed', learnedFacts: event.data.learnedFacts ?? [] } : state
      case 'TaskFailed':
        // A pending task fails only when it is cancelled before any worker claimed it.
        if (state.status === 'pending') return { ...state, status: 'failed', delegatedTaskIds: [], actionIds: [] }
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
  | { readonly outcome: 'completed'; readonly result: string; readonly usage: TaskUsage; readonly costMicros: number; readonly learnedFacts: readonly string[] }
  | { readonly outcome: 'failed'; readonly error: string; readonly reason: FailureReason; readonly usage: TaskUsage | null; readonly costMicros: number }

/** Only a running task ends, and it ends once: invariant 3. */
export function decideFinishTask(command: FinishTask, state: TaskState): TaskEvent[] {
  if (state.status !== 'running') throw new ConflictError(`task is ${state.status}; only a running task can finish`)
  const billing = { billingMonth: state.billingMonth, reservedMicros: state.reservedMicros, agentType: state.agentType }
  if (command.outcome === 'completed') {
    const { result, usage, costMicros, learnedFacts } = command
    return [{ type: 'TaskCompleted', data: { result, usage, costMicros, learnedFacts, ...billing } }]
  }
  return [{ type: 'TaskFailed', data: { error: command.error, reason: command.reason, usage: command.usage, costMicros: command.costMicros, ...billing } }]
}

/** The error of a task cancelled while pending: the one way a task fails without having started. */
export const CANCELLED_BEFORE_START = 'cancelled before it started'

/** Whether a TaskFailed ended a task that never started (it was pending, not running). */
export const failedBeforeStart = (data: { readonly reason: FailureReason; readonly error: string }): boolean => data.reason === 'cancelled' && data.error === CANCELLED_BEFORE_START

/**
 * A pending task ends at once (no worker holds it yet: the claim will find it failed); a
 * running one is asked to stop, and its worker records the end with what the run spent.
 * Asking twice changes nothing; an ended task cannot be cancelled.
 */
export function decideCancelTask(command: { requestedBy: string | null }, state: TaskState): TaskEvent[] {
  if (state.status === 'absent') throw new NotFoundError('task not found')
  if (isTerminal(state.status)) throw new ConflictError(`task has already ended (${state.status}); only a pending or running task can be cancelled`, { code: 'task_already_ended' })
  if (state.status === 'running') return state.cancellationRequested ? [] : [{ type: 'TaskCancellationRequested', data: { requestedBy: command.requestedBy } }]
  const billing = { billingMonth: state.billingMonth, reservedMicros: state.reservedMicros, agentType: state.agentType }
  return [{ type: 'TaskFailed', data: { error: CANCELLED_BEFORE_START, reason: 'cancelled', usage: null, costMicros: 0, ...billing } }]
}

/** Only the worker running the task records what its run does. */
function requireRunningBy(workerId: string, state: TaskState): Extract<TaskState, { status: 'running' }> {
  if (state.status !== 'running') throw new ConflictError(`task is ${state.status}; only a running task can record its run`)
  if (state.workerId !== workerId) throw new ConflictError(`task is run by ${state.workerId}, not ${workerId}`)
  return state
}

export function decideRecordAction(command: { workerId: string; action: TaskActionProposed['data'] }, state: TaskState): TaskEvent[] {
  if (requireRunningBy(command.workerId, state).actionIds.includes(command.action.actionId)) return []
  return [{ type: 'TaskActionProposed', data: command.action }]
}

export function decideRecordDelegation(command: { workerId: string; delegation: TaskDelegated['data'] }, state: TaskState): TaskEvent[] {
  if (requireRunningBy(command.workerId, state).delegatedTaskIds.includes(command.delegation.childTaskId)) return []
  return [{ type: 'TaskDelegated', data: command.delegation }]
}

/**
 * A delegation is one decision over two tasks, stored together (ADR 0034): the child's
 * TaskCreated and the running supervisor's TaskDelegated. Asked again once both are stored
 * (an acknowledgement lost on the wire), it decides nothing.
 */
export function decideDelegation(
  command: { workerId: string; child: Created; delegation: TaskDelegated['data'] },
  states: { parent: TaskState; child: TaskState },
): { parent: TaskEvent[]; child: TaskEvent[] } {
  const parent = decideRecordDelegation(command, states.parent)
  if (parent.length === 0) return { parent, child: [] }
  return { parent, child: decideCreateTask(command.child, states.child) }
}

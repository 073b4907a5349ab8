import { NotFoundError } from '../errors.js'
import type { EventData } from '../events/common.js'
import type * as schemas from '../events/tasks.js'
import type { Aggregate, EventDraft } from '../message.js'
import type { TaskState } from './task.js'

/** A re-run of the task was created as the task `rerunTaskId`. */
export type TaskRerunCreated = EventDraft<'TaskRerunCreated', EventData<typeof schemas.TaskRerunCreatedData>>
export type TaskRerunsEvent = TaskRerunCreated

/**
 * The re-runs of one task, an aggregate of its own (category `reruns`, keyed by the task's
 * id) rather than events of the task: a re-run usually comes after the task ended, and
 * nothing follows a task's terminal event (invariant 3). Append-only: no decision is taken
 * on its state, so its appends are not guarded (ADR 0038).
 */
export interface TaskRerunsState {
  readonly taskIds: readonly string[]
}

export const TaskReruns: Aggregate<TaskRerunsState, TaskRerunsEvent> = {
  category: 'reruns',
  initialState: { taskIds: [] },
  versions: { TaskRerunCreated: 1 },
  evolve: (state, event) => (state.taskIds.includes(event.data.rerunTaskId) ? state : { taskIds: [...state.taskIds, event.data.rerunTaskId] }),
}

/** What a re-run repeats of the task it re-runs. */
export interface RerunBrief {
  readonly sessionId: string
  readonly agentType: Extract<TaskState, { status: 'pending' }>['agentType']
  readonly instruction: string
  readonly title: string | null
  readonly priority: Extract<TaskState, { status: 'pending' }>['priority']
}

/**
 * A task of any status may be re-run: an ended one (completed, failed, cancelled) as
 * Trigger.dev's replay and Temporal's "start again with the same input" do, and a running
 * one too. A pending one meets the rule of every creation: an identical brief is already
 * pending (409, naming it). A delegated task is re-run on its own, as an instruction task.
 */
export function decideRerun(original: TaskState): RerunBrief {
  if (original.status === 'absent') throw new NotFoundError('task not found')
  const { sessionId, agentType, instruction, title, priority } = original
  return { sessionId, agentType, instruction, title, priority }
}

export function decideRecordRerun(command: { readonly rerunTaskId: string }, state: TaskRerunsState): TaskRerunsEvent[] {
  if (state.taskIds.includes(command.rerunTaskId)) return []
  return [{ type: 'TaskRerunCreated', data: { rerunTaskId: command.rerunTaskId } }]
}

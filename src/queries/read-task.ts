import { findTask } from '../../projections/queries/tasks.js'
import { taskDocFromHistory, type TaskDoc } from '../../projections/index.js'
import { Task } from '../domain/tasks/task.js'
import type { Infra } from '../infra/context.js'

const TERMINAL = new Set(['TaskCompleted', 'TaskFailed'])
const MAX_ENDED = 5000

/**
 * Tasks that have ended, as read: nothing follows a terminal event (invariant 3), so an
 * ended task's document never changes again and can be served from memory.
 */
export class EndedTasks {
  private readonly docs = new Map<string, TaskDoc>()

  get(accountId: string, taskId: string): TaskDoc | undefined {
    const doc = this.docs.get(taskId)
    return doc?.accountId === accountId ? doc : undefined
  }

  remember(doc: TaskDoc): void {
    if (this.docs.size >= MAX_ENDED) this.docs.delete(this.docs.keys().next().value as string)
    this.docs.set(doc._id, doc)
  }
}

/**
 * A task as its owner sees it, never older than the log. Its events are read first (one
 * request; a task has a handful): a task in flight changes by the millisecond and is folded
 * from them. An ended task is served from the read model once that has applied its end (the
 * fold until then), then kept in memory. A task whose creation was acknowledged is never missing.
 */
export async function readTask(infra: Infra, accountId: string, taskId: string): Promise<TaskDoc | null> {
  const remembered = infra.endedTasks.get(accountId, taskId)
  if (remembered) return remembered
  const { events } = await infra.events.load(Task, { accountId, aggregateId: taskId })
  const last = events.at(-1)
  if (!last) return null
  if (!TERMINAL.has(last.type)) return taskDocFromHistory(events)
  const doc = await findTask(infra.readModels, accountId, taskId)
  const ended = doc && doc._seq >= last.seq ? doc : taskDocFromHistory(events)
  if (ended) infra.endedTasks.remember(ended)
  return ended
}

/** The task as the log has it, ignoring the read model. */
export async function readTaskFromLog(infra: Infra, accountId: string, taskId: string): Promise<TaskDoc | null> {
  const { events } = await infra.events.load(Task, { accountId, aggregateId: taskId })
  return taskDocFromHistory(events)
}

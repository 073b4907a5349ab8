import { taskDocFromHistory, type TaskDoc } from '../../projections/index.js'
import { TaskReruns } from '../domain/tasks/reruns.js'
import { Task } from '../domain/tasks/task.js'
import type { Infra } from '../infra/context.js'
import { endsTask } from '../domain/tasks/task.js'

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
 * A task as its owner sees it: its own events, folded with the tasks projection's `evolve`
 * (one request; a task has a handful), so never older than the log and never missing once
 * its creation was acknowledged; with its re-runs, read beside it (one more request, made at
 * once): they are another aggregate, and the only part of an ended task that still changes.
 * An ended task's own document is kept in memory. The tasks read model is for what spans
 * tasks (lists, filters, counts); one task is exactly its events.
 */
export async function readTask(infra: Infra & { readonly endedTasks: EndedTasks }, accountId: string, taskId: string): Promise<TaskDoc | null> {
  infra.link.assertUp()
  const key = { accountId, aggregateId: taskId }
  const [doc, reruns] = await Promise.all([ownDocument(infra, accountId, taskId), infra.events.load(TaskReruns, key)])
  return doc && { ...doc, reruns: reruns.state.taskIds }
}

async function ownDocument(infra: Infra & { readonly endedTasks: EndedTasks }, accountId: string, taskId: string): Promise<TaskDoc | null> {
  const remembered = infra.endedTasks.get(accountId, taskId)
  if (remembered) return remembered
  const { events } = await infra.events.load(Task, { accountId, aggregateId: taskId })
  const doc = taskDocFromHistory(events)
  if (doc && endsTask(events.at(-1)?.type ?? '')) infra.endedTasks.remember(doc)
  return doc
}

/** The task as the log has it, ignoring the read model. */
export async function readTaskFromLog(infra: Infra, accountId: string, taskId: string): Promise<TaskDoc | null> {
  const { events } = await infra.events.load(Task, { accountId, aggregateId: taskId })
  return taskDocFromHistory(events)
}

import { taskDocFromHistory, type TaskDoc } from '../../projections/index.js'
import type { Recorded, RecordedEvent } from '../domain/message.js'
import type { TaskEvent } from '../domain/tasks/task.js'
import { followTask, type LiveContext, type TaskFollow } from './task-follow.js'

/**
 * Holds until a task ends, `timeoutMs` passes or `signal` aborts, and returns it as it stands then
 * (null: no such task). It sees only what the log stored: its history by direct gets, then its
 * live events from the process's shared consumer (LiveEventHub), so a wait holds nothing on the
 * server, only a place in the hub and a timer, both released when it ends (ADR 0040). A GET that
 * follows never shows an older state than this answer: readTask checks the read model against the log.
 */
export async function awaitTaskEnd(ctx: LiveContext, accountId: string, taskId: string, timeoutMs: number, signal?: AbortSignal): Promise<TaskDoc | null> {
  const wait = new AbortController()
  const stop = (): void => wait.abort()
  const timer = setTimeout(stop, timeoutMs)
  signal?.addEventListener('abort', stop, { once: true })
  // An abort listener added to a signal that has already aborted is never called: a signal
  // aborted before the wait began would otherwise be missed, and the wait held for all of
  // timeoutMs (a cancelled supervisor kept waiting on a delegated task another run held).
  if (signal?.aborted) stop()
  let follow: TaskFollow | undefined
  try {
    follow = await followTask(ctx, accountId, taskId)
    return taskDocFromHistory((await collect(follow, wait.signal)) as unknown as Recorded<TaskEvent>[])
  } finally {
    clearTimeout(timer)
    signal?.removeEventListener('abort', stop)
    follow?.release()
  }
}

/** The task's history and live events until it ends or `signal` aborts; a live feed cut short (the process stops, NATS gone for good) leaves the task as it stands. */
async function collect(follow: TaskFollow, signal: AbortSignal): Promise<RecordedEvent[]> {
  const events = [...follow.history]
  try {
    for await (const event of follow.live(0, signal)) events.push(event)
  } catch {
    // Interrupted: what the log gave so far is the answer; the caller reads the task again if it must.
  }
  return events
}

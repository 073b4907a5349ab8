import type { EventEnvelope, RecordedEvent } from '../domain/message.js'
import { followTask, type LiveContext } from './task-follow.js'

export interface TaskEventFeed {
  /**
   * The task's events after the given sequence, in stream order, then its live ones;
   * ends after its terminal event, or when `signal` aborts.
   */
  events(signal: AbortSignal): AsyncGenerator<RecordedEvent>
  /** Gives the feed's place in the process's live events back; call once the stream ends. */
  close(): void
}

/**
 * A task's events for its owner, or null when the account has no such task: known
 * before anything is sent, so that an unknown or foreign task is a plain 404.
 *
 * The history is read by direct gets (no server-side state); the live events come from the
 * process's shared consumer, fanned out by task (followTask, ADR 0040): an open stream holds
 * no consumer on the server.
 */
export async function openTaskEvents(ctx: LiveContext, accountId: string, taskId: string, afterSeq: number): Promise<TaskEventFeed | null> {
  const follow = await followTask(ctx, accountId, taskId)
  if (follow.history.length === 0) {
    follow.release()
    return null
  }
  return {
    close: follow.release,
    async *events(signal) {
      for (const event of follow.history) if (event.seq > afterSeq) yield event
      if (signal.aborted) return
      yield* follow.live(afterSeq, signal)
    },
  }
}

/** What a client sees of an event: the documented envelope (docs/events.md), never NATS internals such as the subject. */
export function publicEnvelope(event: RecordedEvent): EventEnvelope {
  const { id, type, version, occurredAt, accountId, aggregateId, data, metadata } = event
  return { id, type, version, occurredAt, accountId, aggregateId, data, metadata }
}

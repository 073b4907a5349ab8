import { useEffect, useState } from 'preact/hooks'

export interface FeedEvent {
  readonly seq: string
  readonly type: string
  readonly occurredAt: string
  readonly data: Record<string, unknown>
}

const TYPES = ['TaskCreated', 'TaskStarted', 'TaskActionProposed', 'TaskDelegated', 'TaskCancellationRequested', 'TaskCompleted', 'TaskFailed']
const ENDS = new Set(['TaskCompleted', 'TaskFailed'])

/**
 * A task's events from GET /v1/tasks/{id}/events (Server-Sent Events, the session cookie
 * goes with it): its whole history first, then each new event as it is appended. Closed
 * once the task has ended, so that the browser does not reconnect to a finished feed.
 */
export function useTaskFeed(taskId: string): readonly FeedEvent[] {
  const [events, setEvents] = useState<readonly FeedEvent[]>([])
  useEffect(() => {
    setEvents([])
    const source = new EventSource(`/v1/tasks/${taskId}/events`)
    const receive = (message: MessageEvent<string>) => {
      const event = parse(message)
      if (!event) return
      setEvents((known) => (known.some((e) => e.seq === event.seq) ? known : [...known, event]))
      if (ENDS.has(event.type)) source.close()
    }
    for (const type of TYPES) source.addEventListener(type, receive)
    return () => source.close()
  }, [taskId])
  return events
}

function parse(message: MessageEvent<string>): FeedEvent | null {
  try {
    const body: unknown = JSON.parse(message.data)
    if (typeof body !== 'object' || body === null) return null
    const record = body as Record<string, unknown>
    const data = typeof record.data === 'object' && record.data !== null ? (record.data as Record<string, unknown>) : {}
    return { seq: message.lastEventId, type: String(record.type ?? message.type), occurredAt: String(record.occurredAt ?? ''), data }
  } catch {
    return null
  }
}

import type { FeedEvent } from '../task-feed.js'
import { when } from '../ui/bits.js'

const SAYS: Readonly<Record<string, string>> = {
  TaskCreated: 'Created',
  TaskStarted: 'Started',
  TaskActionProposed: 'Proposed an action',
  TaskDelegated: 'Delegated a task',
  TaskCancellationRequested: 'Cancellation requested',
  TaskCompleted: 'Completed',
  TaskFailed: 'Failed',
}

/** The task's events in the order they were appended. */
export function Timeline(props: { events: readonly FeedEvent[] }) {
  return (
    <>
      <h2>Timeline</h2>
      <ol class="timeline">
        {props.events.map((event) => (
          <li key={event.seq}>
            <time dateTime={event.occurredAt}>{when(event.occurredAt)}</time> {SAYS[event.type] ?? event.type}
            {event.type === 'TaskFailed' && typeof event.data.reason === 'string' ? ` (${event.data.reason})` : ''}
          </li>
        ))}
      </ol>
    </>
  )
}

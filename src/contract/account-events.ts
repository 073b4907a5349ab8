import { Type } from 'typebox'
import { TaskEventStreamItem } from './task-events.js'

export const AccountEventsHeaders = Type.Object({
  'last-event-id': Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      description:
        'Resume after this event: the `id` of the last event received (a stream sequence). Browsers and SSE clients send it when they reconnect. Without it the stream starts with the next event appended',
    }),
  ),
})

/** The 200 of GET /events: the same events as GET /tasks/{taskId}/events, of every task of the account. */
export const AccountEventStream = {
  description: [
    "A `text/event-stream` (Server-Sent Events): every task event of the caller's account, in stream order, from the next one appended (or after `Last-Event-ID`), as",
    '`id: <stream sequence>`, `event: <event type>` and `data: <the event envelope as JSON, see docs/events.md>`;',
    'the stream stays open until the client leaves (the server may end it, when it stops or the client falls too far behind: resume with `Last-Event-ID`).',
    'Comment lines (`: keep-alive`) keep an idle connection open. The schema describes one event (OpenAPI 3.1 has no schema for a stream).',
  ].join(' '),
  content: {
    'text/event-stream': { schema: TaskEventStreamItem },
  },
}

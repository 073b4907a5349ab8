import { Type } from 'typebox'

export const TaskEventsHeaders = Type.Object({
  'last-event-id': Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'Resume after this event: the `id` of the last event received (a stream sequence). Browsers and SSE clients send it when they reconnect',
    }),
  ),
})

const EXAMPLE = [
  'id: 85',
  'event: TaskCreated',
  'data: {"id":"3303890e-…","type":"TaskCreated","version":1,"occurredAt":"2026-11-23T01:31:02.726Z","accountId":"2a92cb0d-…","aggregateId":"308a9884-…","data":{"sessionId":"bd95aece-…","agentType":"paid-media",…},"metadata":{"correlationId":"66cf0584-…","causationId":null,"keyId":"27c04a4e-…"}}',
  '',
  ': keep-alive',
  '',
  'id: 86',
  'event: TaskStarted',
  'data: {"id":"154259f8-…","type":"TaskStarted",…}',
  '',
].join('\n')

/** The 200 of GET /tasks/{taskId}/events: not JSON but a stream of Server-Sent Events. */
export const TaskEventStream = {
  description: [
    "A `text/event-stream` (Server-Sent Events): each of the task's events, from the first (or after `Last-Event-ID`), as",
    '`id: <stream sequence>`, `event: <event type>` and `data: <the event envelope as JSON, see docs/events.md>`;',
    'the stream ends after `TaskCompleted` or `TaskFailed`. Comment lines (`: keep-alive`) keep an idle connection open.',
  ].join(' '),
  content: {
    'text/event-stream': {
      schema: Type.String({ description: 'Server-Sent Events, one blank line after each', examples: [EXAMPLE] }),
    },
  },
}

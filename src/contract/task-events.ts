import { Type } from 'typebox'
import { Envelope } from '../domain/events/envelope.js'
import { EVENT_REGISTRY } from '../domain/events/registry.js'

export const TaskEventsHeaders = Type.Object({
  'last-event-id': Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'Resume after this event: the `id` of the last event received (a stream sequence). Browsers and SSE clients send it when they reconnect',
    }),
  ),
})

/** Every type a task's stream can carry, in the registry's order (creation first). */
export const TASK_EVENT_TYPES = Object.entries(EVENT_REGISTRY)
  .filter(([, spec]) => spec.category === 'task')
  .map(([type]) => type)

/** One task event as its `data` line carries it: the envelope of docs/events.md, `data` the schema of its type. */
export const TaskEvent = Type.Union(
  Object.entries(EVENT_REGISTRY)
    .filter(([, spec]) => spec.category === 'task')
    .map(([type, spec]) => Type.Object({ ...Envelope.properties, type: Type.Literal(type), data: spec.schema }, { title: `${type}Event`, additionalProperties: false })),
  { description: 'The event envelope (docs/events.md), its `data` as the schema of its `type`' },
)

/**
 * One event of the stream. OpenAPI 3.1 cannot describe a stream of items (3.2's `itemSchema`
 * can), so, as is usual for Server-Sent Events in 3.1, the schema describes one event: its
 * `id`, `event` and `data` fields, `data` being JSON whose schema `contentSchema` gives.
 */
export const TaskEventStreamItem = Type.Object(
  {
    id: Type.String({ pattern: '^[0-9]+$', description: 'The stream sequence of the event; send the last one received as Last-Event-ID to resume after it' }),
    event: Type.Enum(TASK_EVENT_TYPES, { description: 'The event type, the same as `type` in `data`' }),
    data: Type.String({ contentMediaType: 'application/json', contentSchema: TaskEvent, description: 'The event envelope as one line of JSON' }),
  },
  {
    title: 'TaskEventStreamItem',
    additionalProperties: false,
    examples: [
      {
        id: '86',
        event: 'TaskStarted',
        data: '{"id":"154259f8-3f4e-4f6c-9b1a-0c2d3e4f5a6b","type":"TaskStarted","version":1,"occurredAt":"2026-11-23T01:31:02.736Z","accountId":"2a92cb0d-1b2c-4d3e-8f40-5a6b7c8d9e0f","aggregateId":"308a9884-194a-4ea7-97c9-fe39f034f79b","data":{"workerId":"vm:11366:bd0ed517"},"metadata":{"correlationId":"308a9884-194a-4ea7-97c9-fe39f034f79b","causationId":null,"keyId":null}}',
      },
    ],
  },
)

/** The 200 of GET /tasks/{taskId}/events: not JSON but a stream of Server-Sent Events. */
export const TaskEventStream = {
  description: [
    "A `text/event-stream` (Server-Sent Events): each of the task's events, from the first (or after `Last-Event-ID`), as",
    '`id: <stream sequence>`, `event: <event type>` and `data: <the event envelope as JSON, see docs/events.md>`;',
    'the stream ends after `TaskCompleted` or `TaskFailed`. Comment lines (`: keep-alive`) keep an idle connection open.',
    'The schema describes one event (OpenAPI 3.1 has no schema for a stream).',
  ].join(' '),
  content: {
    'text/event-stream': { schema: TaskEventStreamItem },
  },
}

import { Type } from 'typebox'
import { Envelope } from '../domain/events/envelope.js'
import { EVENT_REGISTRY } from '../domain/events/registry.js'
import { ACCOUNT_FEED_CATEGORIES } from '../domain/events/account-feed.js'

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

const feedEvents = Object.entries(EVENT_REGISTRY).filter(([, spec]) => (ACCOUNT_FEED_CATEGORIES as readonly string[]).includes(spec.category))

/** One event of the account feed as its `data` line carries it: a task's (as GET /tasks/{taskId}/events) or a schedule's. */
const AccountEvent = Type.Union(
  feedEvents.map(([type, spec]) => Type.Object({ ...Envelope.properties, type: Type.Literal(type), data: spec.schema }, { title: `${type}Event`, additionalProperties: false })),
  { description: 'The event envelope (docs/events.md), its `data` as the schema of its `type`' },
)

/** One event of the account feed: as TaskEventStreamItem, of a task's or a schedule's types. */
export const AccountEventStreamItem = Type.Object(
  {
    id: Type.String({ pattern: '^[0-9]+$', description: 'The stream sequence of the event; send the last one received as Last-Event-ID to resume after it' }),
    event: Type.Enum(
      feedEvents.map(([type]) => type),
      { description: 'The event type, the same as `type` in `data`' },
    ),
    data: Type.String({ contentMediaType: 'application/json', contentSchema: AccountEvent, description: 'The event envelope as one line of JSON' }),
  },
  { title: 'AccountEventStreamItem', additionalProperties: false },
)

/** The 200 of GET /events: the events of GET /tasks/{taskId}/events of every task of the account, and its schedules' events. */
export const AccountEventStream = {
  description: [
    "A `text/event-stream` (Server-Sent Events): every task and schedule event of the caller's account, in stream order, from the next one appended (or after `Last-Event-ID`), as",
    '`id: <stream sequence>`, `event: <event type>` and `data: <the event envelope as JSON, see docs/events.md>`;',
    'the stream stays open until the client leaves (the server may end it, when it stops or the client falls too far behind: resume with `Last-Event-ID`).',
    'Comment lines (`: keep-alive`) keep an idle connection open. The schema describes one event (OpenAPI 3.1 has no schema for a stream).',
  ].join(' '),
  content: {
    'text/event-stream': { schema: AccountEventStreamItem },
  },
}

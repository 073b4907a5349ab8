import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { openAccountEvents } from '../../queries/account-events.js'
import { sendEvents } from '../sse.js'
import { principalOf } from '../plugins/auth.js'
import { answer, errors } from '../../contract/common.js'
import { AccountEventsHeaders, AccountEventStream } from '../../contract/account-events.js'

/**
 * GET /events: every task and schedule event of the caller's account as Server-Sent Events, for consoles
 * and downstream services (ADR 0036). One shared consumer per API process feeds every open
 * stream, task feed and wait (LiveEventHub, ADR 0040); the stream counts against the account's cap of open streams.
 */
const accountEvents: FastifyPluginAsyncTypebox = async (app) => {
  const open = new Set<AbortController>()
  // Open streams would hold the server's close for the whole grace period: end them; clients resume with Last-Event-ID.
  app.addHook('preClose', async () => {
    for (const stream of open) stream.abort()
  })

  app.get(
    '/events',
    {
      config: { rateLimitGroup: 'tasks.read' },
      schema: {
        summary: "Follow every task and schedule event of the caller's account live (Server-Sent Events)",
        operationId: 'streamAccountEvents',
        description:
          "Every task and schedule event of the caller's account as Server-Sent Events: tasks created, started, their proposed actions and delegations, completions and failures; schedules created, changed, paused, resumed, deleted, each tick fired (with its task) or skipped (with why); in the order the log stored them, each with its stream sequence as `id`. Without Last-Event-ID it starts with the next event appended; with it, it first sends what came after that event, then goes on live, nothing lost and nothing repeated. The stream stays open until the client leaves; the server ends it when it stops or when the client falls more than 1,000 events behind: reconnect with Last-Event-ID. Another account's events never appear. EventSource cannot send the Authorization header: use a server-side proxy or a fetch-based client (docs/tasks.md). It counts against SSE_MAX_STREAMS_PER_ACCOUNT like GET /v1/tasks/{taskId}/events (429 `rate_limited` past it).",
        tags: ['tasks'],
        headers: AccountEventsHeaders,
        response: {
          200: answer(
            AccountEventStream,
            'A `text/event-stream` (Server-Sent Events): every task and schedule event of the account, as `id: <stream sequence>`, `event: <event type>` and `data: <the event envelope as JSON, see docs/events.md>`. Comment lines (`: keep-alive`) keep an idle connection open. The schema describes one event, `data` by its `contentSchema` (OpenAPI 3.1 has no schema for a stream).',
          ),
          ...errors(400, 401, 429),
        },
      },
    },
    async (request, reply) => {
      const { accountId } = principalOf(request)
      const release = app.streamLimit.acquire(accountId, reply)
      const stream = new AbortController()
      let stopWatching: () => void = () => undefined
      try {
        const feed = await openAccountEvents(app.infra, app.infra.liveEvents, accountId, request.headers['last-event-id'])
        open.add(stream)
        // A console session that ends (revoked key, sign-out) ends its streams too, as the task feed does (ADR 0037).
        stopWatching = app.watchConsoleSession(request, () => stream.abort())
        try {
          await sendEvents(request, reply, feed, stream, app.infra.config.TASK_EVENTS_HEARTBEAT_MS)
        } finally {
          feed.close()
        }
      } finally {
        stopWatching()
        open.delete(stream)
        release()
      }
    },
  )
}

export default accountEvents

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { NotFoundError } from '../../domain/errors.js'
import { openTaskEvents } from '../../queries/task-events.js'
import { sendEvents } from '../sse.js'
import { principalOf } from '../plugins/auth.js'
import { answer, errors } from '../../contract/common.js'
import { TaskEventsHeaders, TaskEventStream } from '../../contract/task-events.js'
import { TaskParams } from '../../contract/tasks.js'

/**
 * GET /tasks/{taskId}/events: live progress as Server-Sent Events (written by ../sse.ts).
 * Everything that can refuse the request (auth, rate limit once per stream,
 * validation, the cap on open streams, 404, 503) happens before the hijack, so it answers
 * `{ error }` as usual.
 */
const taskEvents: FastifyPluginAsyncTypebox = async (app) => {
  const open = new Set<AbortController>()
  // Open streams would hold the server's close for the whole grace period: end them; clients resume with Last-Event-ID.
  app.addHook('preClose', async () => {
    for (const stream of open) stream.abort()
  })

  app.get(
    '/tasks/:taskId/events',
    {
      config: { rateLimitGroup: 'tasks.read' },
      schema: {
        summary: "Follow a task's events live (Server-Sent Events) until it ends",
        operationId: 'streamTaskEvents',
        description:
          "The task's events as Server-Sent Events, from the first (or after Last-Event-ID), then live until TaskCompleted or TaskFailed, when the server ends the stream. EventSource cannot send the Authorization header: use a server-side proxy or a fetch-based client (docs/tasks.md). An account may hold SSE_MAX_STREAMS_PER_ACCOUNT streams open at once on one server (100 by default); one more is a 429 (`rate_limited`, Retry-After).",
        tags: ['tasks'],
        params: TaskParams,
        headers: TaskEventsHeaders,
        response: {
          200: answer(
            TaskEventStream,
            "A `text/event-stream` (Server-Sent Events): each of the task's events, from the first (or after `Last-Event-ID`), as `id: <stream sequence>`, `event: <event type>` and `data: <the event envelope as JSON, see docs/events.md>`; the stream ends after `TaskCompleted` or `TaskFailed`. Comment lines (`: keep-alive`) keep an idle connection open. The schema describes one event, `data` by its `contentSchema` (OpenAPI 3.1 has no schema for a stream).",
          ),
          ...errors(400, 401, 404, 429),
        },
      },
    },
    async (request, reply) => {
      const afterSeq = request.headers['last-event-id'] ?? 0
      const { accountId } = principalOf(request)
      const release = app.streamLimit.acquire(accountId, reply)
      const stream = new AbortController()
      let stopWatching: () => void = () => undefined
      try {
        const feed = await openTaskEvents(app.infra, accountId, request.params.taskId, afterSeq)
        if (!feed) throw new NotFoundError('task not found')
        open.add(stream)
        // A console session that ends (revoked key, sign-out) ends its streams too.
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

export default taskEvents

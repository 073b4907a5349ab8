import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { RecordedEvent } from '../../domain/message.js'
import { NotFoundError } from '../../domain/errors.js'
import { openTaskEvents, publicEnvelope, type TaskEventFeed } from '../../queries/task-events.js'
import { principalOf } from '../plugins/auth.js'
import { answer, errors } from '../../contract/common.js'
import { TaskEventsHeaders, TaskEventStream } from '../../contract/task-events.js'
import { TaskParams } from '../../contract/tasks.js'

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  // nginx and similar proxies buffer responses unless told otherwise; SSE must flow as written.
  'x-accel-buffering': 'no',
  // One stream, one connection: once the stream ends, a shutting-down server can let the socket go at once.
  connection: 'close',
}

/**
 * GET /tasks/{taskId}/events: live progress as Server-Sent Events. Written on the raw
 * response after `reply.hijack()`, a few lines of framing, rather than through an SSE
 * plugin: the 0.x @fastify/sse would add a dependency for what a comment line and three
 * fields do. Everything that can refuse the request (auth, rate limit once per stream,
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
        await sendEvents(request, reply, feed, stream, app.infra.config.TASK_EVENTS_HEARTBEAT_MS)
      } finally {
        stopWatching()
        open.delete(stream)
        release()
      }
    },
  )
}

async function sendEvents(request: FastifyRequest, reply: FastifyReply, feed: TaskEventFeed, stream: AbortController, heartbeatMs: number): Promise<void> {
  reply.hijack()
  const res = reply.raw
  // A hijacked reply skips the onSend hooks: carry over what they and onRequest set (rate-limit fields, request id).
  void reply.headers({ 'x-request-id': request.id, ...SSE_HEADERS })
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) res.setHeader(name, value)
  res.writeHead(200)
  res.flushHeaders()
  // Fastify answers HEAD with the GET handler: the headers tell all there is, so nothing is followed.
  if (request.method === 'HEAD') return void res.end()
  // 'close' on the response: the client went away, or the response ended.
  res.on('close', () => stream.abort())
  const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), heartbeatMs)
  try {
    // A task has a handful of events: write without waiting for 'drain'; Node buffers the rest.
    for await (const event of feed.events(stream.signal)) res.write(frame(event))
  } catch (err) {
    // Past the headers an error cannot be a status: end the stream, the client resumes with Last-Event-ID.
    request.log.warn({ err }, 'task event stream ended early')
  } finally {
    clearInterval(heartbeat)
    res.end()
  }
}

/** One SSE event; JSON.stringify escapes line breaks, so `data` is one line. */
function frame(event: RecordedEvent): string {
  return `id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(publicEnvelope(event))}\n\n`
}

export default taskEvents

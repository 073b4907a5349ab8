import { once } from 'node:events'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { RecordedEvent } from '../domain/message.js'
import { publicEnvelope } from '../queries/task-events.js'

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  // nginx and similar proxies buffer responses unless told otherwise; SSE must flow as written.
  'x-accel-buffering': 'no',
  // One stream, one connection: once the stream ends, a shutting-down server can let the socket go at once.
  connection: 'close',
}

/** Events to write, in order, until the source ends or `signal` aborts. */
export interface EventFeed {
  events(signal: AbortSignal): AsyncGenerator<RecordedEvent>
}

/**
 * Writes a feed as Server-Sent Events on the raw response after `reply.hijack()`: a few lines of
 * framing rather than an SSE plugin (the 0.x @fastify/sse would add a dependency for what a
 * comment line and three fields do). Everything that can refuse the request happens before,
 * so it answers `{ error }` as usual. Resolves once the stream has ended.
 */
export async function sendEvents(request: FastifyRequest, reply: FastifyReply, source: EventFeed, stream: AbortController, heartbeatMs: number): Promise<void> {
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
    for await (const event of source.events(stream.signal)) {
      // A long catch-up must not pile up in memory for a slow client: wait for it to read.
      if (!res.write(frame(event))) await once(res, 'drain', { signal: stream.signal })
    }
  } catch (err) {
    // Past the headers an error cannot be a status: end the stream, the client resumes with Last-Event-ID.
    if (!stream.signal.aborted) request.log.warn({ err }, 'event stream ended early')
  } finally {
    clearInterval(heartbeat)
    res.end()
  }
}

/** Frames already written, by event: a live event is one object handed to every stream that follows it, so it is serialized once, not once per stream. */
const frames = new WeakMap<RecordedEvent, string>()

/** One SSE event; JSON.stringify escapes line breaks, so `data` is one line. */
function frame(event: RecordedEvent): string {
  let framed = frames.get(event)
  if (framed === undefined) {
    framed = `id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(publicEnvelope(event))}\n\n`
    frames.set(event, framed)
  }
  return framed
}

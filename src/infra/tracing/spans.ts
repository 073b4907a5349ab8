import { context, isSpanContextValid, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Link, type Span, type SpanOptions } from '@opentelemetry/api'
import { headers as natsHeaders, type MsgHdrs } from '@nats-io/transport-node'

/**
 * The spans mats opens, on the OpenTelemetry API: no-ops unless tracing.ts started the SDK.
 * A task's trace goes from the HTTP request through the appended event (W3C `traceparent`
 * in the NATS message's headers) into the worker's run, its model calls and the projector.
 */
export const tracer = trace.getTracer('mats')
export { SpanKind }

const setter = { set: (carrier: MsgHdrs, key: string, value: string) => carrier.set(key, value) }
const getter = {
  keys: (carrier: MsgHdrs | undefined) => (carrier ? carrier.keys() : []),
  get: (carrier: MsgHdrs | undefined, key: string) => carrier?.get(key) || undefined,
}

/** Runs `work` in a new active span that ends with it, recording a thrown error. */
export async function inSpan<T>(name: string, options: SpanOptions, work: (span: Span) => Promise<T>, parent: Context = context.active()): Promise<T> {
  return tracer.startActiveSpan(name, options, parent, async (span) => {
    try {
      return await work(span)
    } catch (err) {
      span.recordException(err instanceof Error ? err : String(err))
      span.setStatus({ code: SpanStatusCode.ERROR })
      throw err
    } finally {
      span.end()
    }
  })
}

/**
 * NATS headers carrying the active span's context (sampled or not, so that the consumer keeps
 * the caller's sampling decision), or undefined when there is no trace (no headers are sent then).
 */
export function traceHeaders(): MsgHdrs | undefined {
  const spanContext = trace.getSpanContext(context.active())
  if (!spanContext || !isSpanContextValid(spanContext)) return undefined
  const carrier = natsHeaders()
  propagation.inject(context.active(), carrier, setter)
  return carrier
}

/** The context a stored message was appended in (from its `traceparent` header), for spans that follow from it. */
export function contextOf(headers: MsgHdrs | undefined): Context {
  return propagation.extract(ROOT_CONTEXT, headers, getter)
}

/**
 * Links to the spans that appended these messages, for a span that handles many of them at once
 * (a projector's batch). Without a propagator (the SDK tracing.ts starts registers those of
 * `OTEL_PROPAGATORS`, W3C's by default) no header can carry a span's context, and none is read:
 * nats.js parses a message's headers on first access, every event has some (its `Nats-Msg-Id`),
 * and a projector would parse them all for nothing.
 */
export function linksTo(messages: readonly { readonly headers?: MsgHdrs | undefined }[]): Link[] {
  const links: Link[] = []
  if (propagation.fields().length === 0) return links
  for (const { headers } of messages) {
    const spanContext = headers ? trace.getSpanContext(contextOf(headers)) : undefined
    if (spanContext) links.push({ context: spanContext })
  }
  return links
}

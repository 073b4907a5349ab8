import { randomBytes } from 'node:crypto'
import { SpanKind } from '@opentelemetry/api'
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace'
import t, { type Test } from 'tap'
import { ALL_PROJECTIONS } from '../../projections/index.js'
import { handles } from '../../projections/engine/projection.js'
import { startTracing, tracingRequested } from '../../src/infra/tracing/tracing.js'
import { languageModelRig, MODEL, type TaskView } from '../helpers/language-models.js'
import { startServers } from '../helpers/servers.js'
import { testLog } from '../helpers/service.js'
import { until } from '../helpers/wait.js'

// Spans of this process (the service runs in it) kept in memory, as an OTLP exporter would send them.
const exporter = new InMemorySpanExporter()
const tracing = await startTracing({}, testLog(), { spanProcessors: [new SimpleSpanProcessor({ exporter })] })
t.teardown(() => tracing?.shutdown())

const servers = await startServers(t)
const { caller, sessionId } = await languageModelRig(t, servers, 'openai', () => ({ text: '# Plan\n\nThe deliverable.', usage: { input: 120, output: 40 } }))

/** The caller's own span, under which it sends its request (a W3C traceparent). */
const CALLER_SPAN = '00f067aa0ba902b7'

const named = (spans: readonly ReadableSpan[], name: string) => spans.filter((span) => span.name === name)
const parentOf = (span: ReadableSpan | undefined) => span?.parentSpanContext?.spanId

/**
 * POST /v1/tasks in a trace of its own, answered as it comes. On a starved machine the service
 * may rightly answer 503 (invariant 11) after its append went out; a client's retry would then
 * join that trace with a second request. The trace this test reads must hold one request, so a
 * 503 is followed by a new attempt in a new trace, with another instruction (the first may
 * still become a task, identical to it).
 */
async function tracedPost(t: Test): Promise<{ traceId: string; task: TaskView }> {
  const api = caller.api.withoutRetry()
  for (let attempt = 1; ; attempt++) {
    const traceId = randomBytes(16).toString('hex')
    const body = { sessionId, agentType: 'seo', instruction: `Audit the blog titles (attempt ${attempt})`, waitSeconds: 20 }
    const created = await api.post<{ task: TaskView }>('/v1/tasks', body, { traceparent: `00-${traceId}-${CALLER_SPAN}-01` })
    if (created.status !== 503 || attempt === 5) {
      t.equal(created.status, 201, `created on attempt ${attempt}`)
      return { traceId, task: created.body.task }
    }
    process.stderr.write(`[tracing test] attempt ${attempt} answered 503; a new attempt in a new trace\n`)
  }
}

t.test('given a traced POST /v1/tasks, then one trace goes from the request through the appended event into the run, its model call and its end, and the projector links to it', async (t) => {
  const { traceId: CALLER_TRACE, task } = await tracedPost(t)
  t.equal(task.status, 'completed')
  const inTrace = (span: ReadableSpan) => span.spanContext().traceId === CALLER_TRACE

  // The projector writes the task's events in one batch or more: wait until a batch has linked to its last append.
  const spans = await until('the projector to write the task to its end', () => {
    const finished = exporter.getFinishedSpans()
    const completed = named(finished, 'append TaskCompleted').find(inTrace)
    const linked = named(finished, 'project tasks').some((span) => span.links.some((link) => link.context.spanId === completed?.spanContext().spanId))
    return linked && finished
  })
  const [request] = named(spans, 'POST /v1/tasks').filter(inTrace)
  t.match(request, { kind: SpanKind.SERVER, attributes: { 'http.route': '/v1/tasks', 'http.response.status_code': 201 } }, 'a server span by route pattern')
  t.equal(request?.spanContext().traceId, CALLER_TRACE, "it continues the caller's trace")
  t.equal(parentOf(request), CALLER_SPAN, "under the caller's span")

  const [appendCreated] = named(spans, 'append TaskCreated').filter(inTrace)
  t.match(appendCreated, { kind: SpanKind.PRODUCER, attributes: { 'messaging.system': 'nats' } })
  t.equal(parentOf(appendCreated), request?.spanContext().spanId, 'the append is a child of the request')

  const [run] = named(spans, 'run seo').filter(inTrace)
  t.match(run, { kind: SpanKind.CONSUMER, attributes: { 'mats.task.id': task.id } })
  t.equal(run?.spanContext().traceId, CALLER_TRACE, 'the run is in the same trace, carried by the message headers')
  t.equal(parentOf(run), appendCreated?.spanContext().spanId, 'under the append of its TaskCreated')

  const [chat] = named(spans, `chat ${MODEL}`).filter(inTrace)
  t.match(chat, { kind: SpanKind.CLIENT, attributes: { 'gen_ai.request.model': MODEL, 'gen_ai.usage.input_tokens': 120, 'gen_ai.usage.output_tokens': 40 } })
  const ancestors = (span: ReadableSpan | undefined): string[] => {
    const parent = spans.find((s) => s.spanContext().spanId === parentOf(span))
    return parent ? [parent.name, ...ancestors(parent)] : []
  }
  t.ok(ancestors(chat).includes('run seo'), `the model call is within the run (${ancestors(chat).join(' < ')})`)
  const [appendCompleted] = named(spans, 'append TaskCompleted').filter(inTrace)
  t.ok(ancestors(appendCompleted).includes('run seo'), 'the end is appended within the run')

  const linked = named(spans, 'project tasks').flatMap((span) => span.links.map((link) => link.context.spanId))
  t.ok(linked.includes(appendCreated?.spanContext().spanId ?? ''), 'the projector batch that wrote the task links to the append of its TaskCreated')
  t.ok(linked.includes(appendCompleted?.spanContext().spanId ?? ''), 'and of its TaskCompleted')
})

t.test("given the projector's batches, then each projection's span links only to the appends of the events it writes", async (t) => {
  const writes = new Map(ALL_PROJECTIONS.map((projection) => [`project ${projection.name}`, projection]))
  // account_usage writes a task's end only: its batches must not link to the appends of the task's creation and start.
  const spans = await until("account_usage's batch linked to a task's end", () => {
    const finished = exporter.getFinishedSpans()
    return named(finished, 'project account_usage').some((span) => span.links.length > 0) && finished
  })
  const appendedType = new Map(spans.flatMap((span) => (span.name.startsWith('append ') ? [[span.spanContext().spanId, span.name.slice('append '.length)] as const] : [])))
  const projected = spans.filter((span) => writes.has(span.name))
  const strays = projected.flatMap((span) =>
    span.links.flatMap((link) => {
      const type = appendedType.get(link.context.spanId)
      // An atomic batch ("append 2 events") holds several types: not told apart here.
      const projection = writes.get(span.name)
      return type === undefined || type.endsWith(' events') || (projection && handles(projection, type)) ? [] : [`${span.name} → append ${type}`]
    }),
  )
  t.ok(
    projected.some((span) => span.name === 'project account_usage' && span.links.length > 0),
    'account_usage linked its batch',
  )
  t.same(strays, [], 'no projection links to an event it does not write')
})

t.test('tracing is off unless the standard OTEL_* variables ask for it', async (t) => {
  t.equal(tracingRequested({}), false, 'nothing set')
  t.equal(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }), true, 'an OTLP endpoint')
  t.equal(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }), true, 'a traces endpoint')
  t.equal(tracingRequested({ OTEL_TRACES_EXPORTER: 'console' }), true, 'an exporter')
  t.equal(tracingRequested({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }), false, 'exporter none')
  t.equal(tracingRequested({ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' }), false, 'the SDK disabled')
  t.equal(await startTracing({}, testLog()), null, 'and then nothing is started')
})

import { SpanKind } from '@opentelemetry/api'
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace'
import t from 'tap'
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

/** The caller's own trace: a W3C traceparent it sends with the request. */
const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736'
const CALLER_SPAN = '00f067aa0ba902b7'

const named = (spans: readonly ReadableSpan[], name: string) => spans.filter((span) => span.name === name)
const parentOf = (span: ReadableSpan | undefined) => span?.parentSpanContext?.spanId

t.test('given a traced POST /v1/tasks, then one trace goes from the request through the appended event into the run, its model call and its end, and the projector links to it', async (t) => {
  const created = await caller.api.post<{ task: TaskView }>(
    '/v1/tasks',
    { sessionId, agentType: 'seo', instruction: 'Audit the blog titles', waitSeconds: 20 },
    { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` },
  )
  t.equal(created.body.task.status, 'completed')

  // The projector writes the task's events in one batch or more: wait until a batch has linked to its last append.
  const spans = await until('the projector to write the task to its end', () => {
    const finished = exporter.getFinishedSpans()
    const completed = named(finished, 'append TaskCompleted').find((span) => span.spanContext().traceId === CALLER_TRACE)
    const linked = named(finished, 'project tasks').some((span) => span.links.some((link) => link.context.spanId === completed?.spanContext().spanId))
    return linked && finished
  })
  const [request] = named(spans, 'POST /v1/tasks')
  t.match(request, { kind: SpanKind.SERVER, attributes: { 'http.route': '/v1/tasks', 'http.response.status_code': 201 } }, 'a server span by route pattern')
  t.equal(request?.spanContext().traceId, CALLER_TRACE, "it continues the caller's trace")
  t.equal(parentOf(request), CALLER_SPAN, "under the caller's span")

  const [appendCreated] = named(spans, 'append TaskCreated').filter((span) => span.spanContext().traceId === CALLER_TRACE)
  t.match(appendCreated, { kind: SpanKind.PRODUCER, attributes: { 'messaging.system': 'nats' } })
  t.equal(parentOf(appendCreated), request?.spanContext().spanId, 'the append is a child of the request')

  const [run] = named(spans, 'run seo')
  t.match(run, { kind: SpanKind.CONSUMER, attributes: { 'mats.task.id': created.body.task.id } })
  t.equal(run?.spanContext().traceId, CALLER_TRACE, 'the run is in the same trace, carried by the message headers')
  t.equal(parentOf(run), appendCreated?.spanContext().spanId, 'under the append of its TaskCreated')

  const [chat] = named(spans, `chat ${MODEL}`)
  t.match(chat, { kind: SpanKind.CLIENT, attributes: { 'gen_ai.request.model': MODEL, 'gen_ai.usage.input_tokens': 120, 'gen_ai.usage.output_tokens': 40 } })
  const ancestors = (span: ReadableSpan | undefined): string[] => {
    const parent = spans.find((s) => s.spanContext().spanId === parentOf(span))
    return parent ? [parent.name, ...ancestors(parent)] : []
  }
  t.ok(ancestors(chat).includes('run seo'), `the model call is within the run (${ancestors(chat).join(' < ')})`)
  const [appendCompleted] = named(spans, 'append TaskCompleted').filter((span) => span.spanContext().traceId === CALLER_TRACE)
  t.ok(ancestors(appendCompleted).includes('run seo'), 'the end is appended within the run')

  const linked = named(spans, 'project tasks').flatMap((span) => span.links.map((link) => link.context.spanId))
  t.ok(linked.includes(appendCreated?.spanContext().spanId ?? ''), 'the projector batch that wrote the task links to the append of its TaskCreated')
  t.ok(linked.includes(appendCompleted?.spanContext().spanId ?? ''), 'and of its TaskCompleted')
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

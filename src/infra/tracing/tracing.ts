import type { SpanProcessor } from '@opentelemetry/sdk-trace'
import type { Logger } from 'pino'

let started = false

/** Whether this process started the SDK: what only tracing needs is then set up (a request's span). */
export function tracingOn(): boolean {
  return started
}

/** The OpenTelemetry SDK of this process, once started; shut down to flush what it holds. */
export interface Tracing {
  shutdown(): Promise<void>
}

/**
 * Tracing is off unless the standard OpenTelemetry variables ask for it: an OTLP endpoint
 * (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) or an exporter
 * (`OTEL_TRACES_EXPORTER`, not `none`), and not `OTEL_SDK_DISABLED=true`.
 */
export function tracingRequested(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.toLowerCase() === 'true') return false
  const exporter = env.OTEL_TRACES_EXPORTER
  if (exporter !== undefined && exporter !== '') return exporter !== 'none'
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
}

/**
 * Starts the OpenTelemetry Node SDK for traces when the environment asks for it (or when
 * `spanProcessors` are given: tests). Everything else it reads from the standard `OTEL_*`
 * variables: exporter, endpoint and headers, sampler, propagators, service name and resource
 * attributes (`service.name` defaults to `mats`). The SDK is loaded only then, so a process
 * without tracing neither pays for it in memory nor records anything: the spans mats opens go
 * to the API's no-op tracer.
 */
export async function startTracing(env: NodeJS.ProcessEnv, log: Logger, options: { readonly spanProcessors?: SpanProcessor[] } = {}): Promise<Tracing | null> {
  if (!options.spanProcessors && !tracingRequested(env)) return null
  const { NodeSDK } = await import('@opentelemetry/sdk-node')
  const sdk = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME ?? 'mats',
    instrumentations: [],
    // Traces only: metrics are served by /metrics (prom-client), logs by pino.
    metricReaders: [],
    logRecordProcessors: [],
    ...(options.spanProcessors ? { spanProcessors: options.spanProcessors } : {}),
  })
  sdk.start()
  started = true
  log.info({ exporter: env.OTEL_TRACES_EXPORTER ?? 'otlp', endpoint: env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT }, 'tracing on (OpenTelemetry)')
  return { shutdown: () => sdk.shutdown() }
}

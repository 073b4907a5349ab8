import type { Logger } from 'pino'
import type { RecordedEvent } from './domain/message.js'
import { createAgentProvider } from '../consumers/agents/registry.js'
import { watchTaskQueue } from '../consumers/worker/queue-metrics.js'
import { ApprovedActionExecutor } from '../consumers/connectors/approved-actions.js'
import { NO_CONNECTORS, type PlatformConnectors } from '../consumers/connectors/platform-connectors.js'
import { TaskWorker } from '../consumers/worker/worker.js'
import { WebhookService } from '../consumers/webhooks/webhooks.js'
import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import { ALL_PROJECTIONS, PartitionLeases, Projector, watchProjectionLag, type Projection } from '../projections/index.js'
import type { Config } from './config.js'
import { buildServer, type MatsServer } from './http/server.js'
import { connectApp, type AppContext } from './app-context.js'
import { serveMetrics } from './infra/metrics/serve.js'

export const ROLES = ['api', 'worker', 'projector', 'webhooks'] as const
export type Role = (typeof ROLES)[number]

export interface RunningService {
  readonly infra: AppContext
  readonly server: MatsServer | null
  /** The API's base address (`http://host:port`), when the api role runs. */
  readonly url: string | null
  readonly worker: TaskWorker | null
  /** Where GET /metrics answers when METRICS_PORT is set. */
  readonly metricsUrl: string | null
  stop(): Promise<void>
}

/** What an embedding program (the benchmark) may observe. */
export interface ServiceHooks {
  /** Each batch a projector runner wrote, with its projection's name. */
  readonly onProjected?: (projection: string, events: readonly RecordedEvent[]) => void
  /** The platforms this deployment can change (none by default); the worker role uses them. */
  readonly connectors?: PlatformConnectors
}

/** Runs the given roles in this process over one set of connections. */
export async function startService(config: Config, log: Logger, roles: ReadonlySet<Role>, hooks: ServiceHooks = {}): Promise<RunningService> {
  const infra = await connectApp(config, log)
  infra.metrics.labelRoles([...roles])
  const projector = roles.has('projector') ? await startProjector(infra, config, hooks) : null
  const worker = roles.has('worker')
    ? new TaskWorker(
        infra,
        createAgentProvider(config, log),
        {
          concurrency: config.WORKER_CONCURRENCY,
          lookahead: config.WORKER_LOOKAHEAD,
          ackWaitMs: config.WORKER_ACK_WAIT_MS,
          timeoutMs: config.TASK_TIMEOUT_MS,
        },
        hooks.connectors,
      )
    : null
  await worker?.start()
  if (worker) watchTaskQueue(infra)
  const executor = roles.has('worker') ? new ApprovedActionExecutor(infra, hooks.connectors ?? NO_CONNECTORS) : null
  await executor?.start()
  const webhooks = await startWebhooks(infra, roles)
  let server: MatsServer | null = null
  let url: string | null = null
  if (roles.has('api')) {
    server = await buildServer(infra)
    url = await server.listen({ host: config.HOST, port: config.PORT })
  }
  // On a port of its own when asked for, whatever the roles; otherwise the api role serves it on PORT (src/http/plugins/metrics.ts).
  const metricsServer = config.METRICS_PORT !== undefined ? await serveMetrics(infra.metrics, config.HOST, config.METRICS_PORT, config.METRICS_TOKEN) : null
  log.info({ roles: [...roles], url }, 'mats started')
  let stopping: Promise<void> | undefined
  return {
    infra,
    server,
    url,
    worker,
    metricsUrl: metricsServer ? `http://${config.HOST}:${metricsServer.port}/metrics` : null,
    stop() {
      stopping ??= (async () => {
        await closeWithin(server, config.SHUTDOWN_GRACE_MS)
        await metricsServer?.close()
        await worker?.stop(config.SHUTDOWN_GRACE_MS)
        await executor?.stop()
        await webhooks?.stop()
        await projector?.stop()
        await infra.close()
        log.info('mats stopped')
      })()
      return stopping
    },
  }
}

async function startProjector(infra: AppContext, config: Config, { onProjected }: ServiceHooks): Promise<Projector> {
  const { nc, js, jsm, readModels, log } = infra
  const memberId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`
  const leases = await PartitionLeases.open(js, readModels.db.databaseName, memberId, { replicas: config.NATS_STREAM_REPLICAS, ttlMs: config.PROJECTOR_LEASE_MS })
  const projector = new Projector({ nc, js, jsm, readModels, log: log.child({ role: 'projector', memberId }) }, ALL_PROJECTIONS, leases, {
    renewMs: Math.floor(config.PROJECTOR_LEASE_MS / 5),
    runner: {
      onApplied: (projection: Projection, events: readonly RecordedEvent[]) => {
        const last = events.at(-1)
        if (last) infra.metrics.projected(projection.name, projection.stream, last)
        onProjected?.(projection.name, events)
      },
    },
  })
  await projector.start()
  watchProjectionLag(infra.metrics, jsm, readModels, ALL_PROJECTIONS)
  return projector
}

/**
 * Webhooks need WEBHOOKS_SECRET_KEY to sign. Asked for alone, the role refuses to start
 * without it; as part of several roles (`all`), webhooks are simply off, as in the API.
 */
async function startWebhooks(infra: AppContext, roles: ReadonlySet<Role>): Promise<WebhookService | null> {
  if (!roles.has('webhooks')) return null
  if (!infra.config.WEBHOOKS_SECRET_KEY && roles.size > 1) {
    infra.log.info('webhooks are off: WEBHOOKS_SECRET_KEY is not set')
    return null
  }
  return WebhookService.start(infra)
}

/**
 * Stops accepting connections and lets requests in flight (a long `waitSeconds`, say)
 * finish for up to `graceMs`; then cuts the ones still open.
 */
async function closeWithin(server: MatsServer | null, graceMs: number): Promise<void> {
  if (!server) return
  const closed = server.close()
  const timer = setTimeout(() => server.server.closeAllConnections(), graceMs)
  timer.unref()
  await closed
  clearTimeout(timer)
}

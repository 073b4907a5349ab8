import type { Logger } from 'pino'
import type { RecordedEvent } from './domain/message.js'
import { createAgentProvider } from '../consumers/agents/registry.js'
import { watchTaskQueue } from '../consumers/worker/queue-metrics.js'
import { ApprovedActionExecutor } from '../consumers/connectors/approved-actions.js'
import { NO_CONNECTORS, type PlatformConnectors } from '../consumers/connectors/platform-connectors.js'
import { TaskWorker } from '../consumers/worker/worker.js'
import { WebhookService } from '../consumers/webhooks/webhooks.js'
import { Scheduler } from '../consumers/schedules/scheduler.js'
import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import { ALL_PROJECTIONS, PartitionLeases, Projector, watchProjectionLag, type Projection } from '../projections/index.js'
import { ConfigError, type Config } from './config.js'
import { buildServer, type MatsServer } from './http/server.js'
import { connectApp, type AppContext } from './app-context.js'
import { serveMetrics } from './infra/metrics/serve.js'

export const ROLES = ['api', 'worker', 'projector', 'webhooks', 'scheduler'] as const
export type Role = (typeof ROLES)[number]

export interface RunningService {
  readonly infra: AppContext
  readonly server: MatsServer | null
  /** The API's base address (`http://host:port`), when the api role runs. */
  readonly url: string | null
  readonly worker: TaskWorker | null
  /** Where GET /metrics answers when the api role does not run (METRICS_PORT). */
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

/**
 * Runs the given roles in this process over one set of connections. First what can fail
 * without taking any work (the connections, the HTTP port, the webhooks' streams), then
 * the parts that take work (claim tasks, consume), so that a start that fails part-way
 * (a port taken, a server out of reach) has claimed nothing. On failure it stops what it
 * had started and closes its connections before rethrowing.
 */
export async function startService(config: Config, log: Logger, roles: ReadonlySet<Role>, hooks: ServiceHooks = {}): Promise<RunningService> {
  refuseWebhooksWithoutKey(config, roles)
  const infra = await connectApp(config, log)
  const parts: Parts = { server: null, metricsServer: null, worker: null, executor: null, webhooks: null, projector: null, scheduler: null }
  const stopParts = () => stopInOrder(parts, infra, config.SHUTDOWN_GRACE_MS)
  let url: string | null = null
  try {
    infra.metrics.labelRoles([...roles])
    const worker = roles.has('worker') ? newWorker(infra, config, log, hooks) : null
    const webhooks = await prepareWebhooks(infra, roles)
    parts.webhooks = webhooks
    if (roles.has('api')) {
      parts.server = await buildServer(infra)
      url = await parts.server.listen({ host: config.HOST, port: config.PORT })
    }
    // On a port of its own when asked for, whatever the roles; otherwise the api role serves it on PORT (src/http/plugins/metrics.ts).
    if (config.METRICS_PORT !== undefined) parts.metricsServer = await serveMetrics(infra.metrics, config.HOST, config.METRICS_PORT, config.METRICS_TOKEN)
    // Every part is up: from here on this process takes work.
    if (roles.has('projector')) parts.projector = await startProjector(infra, config, hooks)
    if (worker) {
      parts.worker = worker
      await worker.start()
      watchTaskQueue(infra)
      parts.executor = new ApprovedActionExecutor(infra, hooks.connectors ?? NO_CONNECTORS)
      await parts.executor.start()
    }
    await webhooks?.start()
    if (roles.has('scheduler')) parts.scheduler = await startScheduler(infra, config)
  } catch (err) {
    await stopParts()
    throw err
  }
  const { server, metricsServer, worker } = parts
  log.info({ roles: [...roles], url }, 'mats started')
  let stopping: Promise<void> | undefined
  return {
    infra,
    server,
    url,
    worker,
    metricsUrl: metricsServer ? `http://${config.HOST}:${metricsServer.port}/metrics` : null,
    stop() {
      stopping ??= stopParts().then(() => log.info('mats stopped'))
      return stopping
    },
  }
}

/** What one process runs; null for what it does not run, or did not get to start. */
interface Parts {
  server: MatsServer | null
  metricsServer: { readonly port: number; close(): Promise<void> } | null
  worker: TaskWorker | null
  executor: ApprovedActionExecutor | null
  webhooks: WebhookService | null
  projector: Projector | null
  scheduler: Scheduler | null
}

/** Requests first (no new work comes in), then what takes work, then the connections. */
async function stopInOrder(parts: Parts, infra: AppContext, graceMs: number): Promise<void> {
  await closeWithin(parts.server, graceMs)
  await parts.metricsServer?.close()
  await parts.scheduler?.stop()
  await parts.worker?.stop(graceMs)
  await parts.executor?.stop()
  await parts.webhooks?.stop()
  await parts.projector?.stop()
  await infra.close()
}

function newWorker(infra: AppContext, config: Config, log: Logger, hooks: ServiceHooks): TaskWorker {
  const options = {
    concurrency: config.WORKER_CONCURRENCY,
    lookahead: config.WORKER_LOOKAHEAD,
    ackWaitMs: config.WORKER_ACK_WAIT_MS,
    timeoutMs: config.TASK_TIMEOUT_MS,
    replicas: config.NATS_STREAM_REPLICAS,
  }
  return new TaskWorker(infra, createAgentProvider(config, log), options, hooks.connectors)
}

async function startProjector(infra: AppContext, config: Config, { onProjected }: ServiceHooks): Promise<Projector> {
  const { nc, js, jsm, link, readModels, log } = infra
  const memberId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`
  const leases = await PartitionLeases.open(js, readModels.db.databaseName, memberId, { replicas: config.NATS_STREAM_REPLICAS, ttlMs: config.PROJECTOR_LEASE_MS })
  const projector = new Projector({ nc, js, jsm, link, readModels, log: log.child({ role: 'projector', memberId }) }, ALL_PROJECTIONS, leases, {
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

/** Fires the schedules' ticks; several may run (ADR 0039). */
async function startScheduler(infra: AppContext, config: Config): Promise<Scheduler> {
  // An account's batch of ticks holds one of the process's atomic batch slots: more at once than slots only wait for one, and time out (bench:schedules, ADR 0051).
  const concurrency = Math.min(64, config.NATS_BATCHES_PER_STREAM)
  const scheduler = new Scheduler(infra, { refreshMs: config.SCHEDULER_REFRESH_MS, loopMs: 100, concurrency })
  await scheduler.start()
  return scheduler
}

/**
 * Webhooks need WEBHOOKS_SECRET_KEY to sign. Asked for alone, the role refuses to start
 * without it (before connecting to anything); as part of several roles (`all`), webhooks
 * are simply off, as in the API. `mats dev` generates a key (src/cli/commands/dev.ts).
 */
function refuseWebhooksWithoutKey(config: Config, roles: ReadonlySet<Role>): void {
  if (roles.has('webhooks') && roles.size === 1 && !config.WEBHOOKS_SECRET_KEY) {
    throw new ConfigError(['WEBHOOKS_SECRET_KEY: the webhooks role needs it (openssl rand -base64 32; docs/configuration.md)'])
  }
}

async function prepareWebhooks(infra: AppContext, roles: ReadonlySet<Role>): Promise<WebhookService | null> {
  if (!roles.has('webhooks')) return null
  if (!infra.config.WEBHOOKS_SECRET_KEY) {
    infra.log.info('webhooks are off: WEBHOOKS_SECRET_KEY is not set')
    return null
  }
  return WebhookService.prepare(infra)
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

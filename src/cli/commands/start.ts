import type { Logger } from 'pino'
import type { Config } from '../../config.js'
import { freePort } from '../../infra/local/servers.js'
import { createLogger } from '../../infra/logger.js'
import { startTracing } from '../../infra/tracing/tracing.js'
import { ROLES, startService, type Role, type RunningService } from '../../service.js'
import { addressInUse, cannotConnect } from '../hints.js'
import { parse, UsageError } from '../io.js'
import { UNPINNED_WARNING, youngGenerationPinned } from '../young-generation.js'

export function rolesFrom(value: string | undefined): Set<Role> {
  const role = value ?? 'all'
  if (role === 'all') return new Set(ROLES)
  if ((ROLES as readonly string[]).includes(role)) return new Set([role as Role])
  throw new UsageError(`--role must be one of api, worker, projector, webhooks, scheduler, all (got "${role}")`)
}

export async function start(config: Config, args: string[]): Promise<void> {
  const { values } = parse(args, { role: { type: 'string' } })
  const roles = rolesFrom(values.role)
  const log = createLogger(config.LOG_LEVEL)
  if (process.env.NODE_ENV === 'production' && !youngGenerationPinned()) log.warn(UNPINNED_WARNING)
  const tracing = await startTracing(process.env, log)
  const service = await startOrExplain(config, log.child({ role: values.role ?? 'all' }), roles)
  await untilSignal(service, log, config.SHUTDOWN_GRACE_MS, async () => tracing?.shutdown())
}

/** startService, with a port already in use or a server out of reach said in one line with its fix. */
export async function startOrExplain(config: Config, log: Logger, roles: ReadonlySet<Role>): Promise<RunningService> {
  try {
    return await startService(config, log, roles)
  } catch (err) {
    throw addressInUse(err, config.HOST, config, await freePort()) ?? cannotConnect(err, config) ?? err
  }
}

/** Stops cleanly on SIGTERM/SIGINT (and SIGHUP: the terminal closed); a second signal, or the grace period running out, forces exit. */
export function untilSignal(service: RunningService, log: Logger, graceMs: number, onStopped?: () => Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    let stopping = false
    const shutdown = (signal: NodeJS.Signals) => {
      if (stopping) {
        log.warn({ signal }, 'second signal: exiting now')
        process.exit(1)
      }
      stopping = true
      log.info({ signal }, 'shutting down')
      const force = setTimeout(() => {
        log.error({ graceMs }, 'shutdown grace period exceeded: exiting')
        process.exit(1)
      }, graceMs + 5000)
      force.unref()
      void service
        .stop()
        .then(onStopped)
        .finally(() => resolve())
    }
    process.once('SIGTERM', shutdown)
    process.once('SIGINT', shutdown)
    process.once('SIGHUP', shutdown)
  })
}

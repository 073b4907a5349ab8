import type { Logger } from 'pino'
import type { Config } from '../../config.js'
import { ROLES, startService, type Role, type RunningService } from '../../service.js'
import { parse, UsageError } from '../io.js'

export const START_USAGE = 'mats start [--role api|worker|projector|webhooks|all]   (default all)'

export function rolesFrom(value: string | undefined): Set<Role> {
  const role = value ?? 'all'
  if (role === 'all') return new Set(ROLES)
  if ((ROLES as readonly string[]).includes(role)) return new Set([role as Role])
  throw new UsageError(`--role must be one of api, worker, projector, webhooks, all (got "${role}")`)
}

export async function start(config: Config, log: Logger, args: string[]): Promise<void> {
  const { values } = parse(args, { role: { type: 'string' } })
  const service = await startService(config, log.child({ role: values.role ?? 'all' }), rolesFrom(values.role))
  await untilSignal(service, log, config.SHUTDOWN_GRACE_MS)
}

/** Stops cleanly on SIGTERM/SIGINT; a second signal, or the grace period running out, forces exit. */
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
      void service.stop().then(onStopped).finally(() => resolve())
    }
    process.once('SIGTERM', shutdown)
    process.once('SIGINT', shutdown)
  })
}

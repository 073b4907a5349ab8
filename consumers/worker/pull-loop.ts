import type { JsMsg } from '@nats-io/jetstream'
import type { Logger } from 'pino'
import type { AppContext } from '../../src/app-context.js'
import type { Wake } from './wake.js'

/** After a failed pull or state read: long enough not to flood the log while NATS is away. */
export const RETRY_MS = 1000
/** How often a per-account worker reads which accounts wait: finds redeliveries and missed doorbells. */
export const REFRESH_MS = 1000

/** What a pull loop (arrival or per-account) needs from the worker that composes it. */
export interface PullLoopDeps {
  readonly infra: AppContext
  readonly ackWaitMs: number
  /** Messages a loop may ask for: the lookahead less the tasks the worker holds. */
  readonly room: () => number
  readonly deliver: (msg: JsMsg) => void
  readonly wake: Wake
  /** Aborted when the worker stops: the loops end, and a late delivery is handed back. */
  readonly stopping: AbortSignal
  readonly log: Logger
}

export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

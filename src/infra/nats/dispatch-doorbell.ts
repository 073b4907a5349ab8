import type { NatsConnection } from '@nats-io/transport-node'
import { publishBestEffort } from './best-effort.js'
import { DISPATCH_PULL_EXPIRES_MS } from './dispatch-stream.js'

/** Where a task's creation tells the workers that its account has work (core NATS, not stored). */
export const DISPATCH_DOORBELL_ROOT = 'mats-internal.dispatch'

export function dispatchDoorbellSubject(accountId: string): string {
  return `${DISPATCH_DOORBELL_ROOT}.${accountId}`
}

/**
 * The doorbell keeps quiet for half a pull's wait after ringing (ADR 0064): a task created in
 * the quiet half finds the pull the ring started still waiting, whatever the ring's delay on the
 * way, or, if that pull filled first, the turn a worker gives an account whose pull ended full
 * while it rang within a pull's wait. A task that reaches the dispatch stream later than that
 * starts at the workers' next read (within 1 s).
 */
export const DOORBELL_QUIET_MS = DISPATCH_PULL_EXPIRES_MS / 2

/** Past this many accounts rung, the ones rung longer than the quiet time ago are forgotten. */
const MAX_RUNG_ACCOUNTS = 10_000

/**
 * Rings the workers' doorbell for an account whose task was just created, at most once per
 * quiet time and process (ADR 0064): one message per account and half second, where the
 * workers hearing every TaskCreated cost one message per task and worker.
 */
export class DispatchDoorbell {
  private readonly rungAt = new Map<string, number>()

  constructor(
    private readonly nc: Pick<NatsConnection, 'publish'>,
    // Monotonic: a wall clock stepped back would keep an account quiet until it caught up.
    private readonly now: () => number = () => performance.now(),
    private readonly quietMs = DOORBELL_QUIET_MS,
  ) {}

  ring(accountId: string): void {
    const now = this.now()
    const last = this.rungAt.get(accountId)
    if (last !== undefined && now - last < this.quietMs) return
    if (this.rungAt.size >= MAX_RUNG_ACCOUNTS) this.forgetQuiet(now)
    // Not rung (the process stops): the workers' next read of the stream finds the task.
    if (publishBestEffort(this.nc, dispatchDoorbellSubject(accountId))) this.rungAt.set(accountId, now)
  }

  private forgetQuiet(now: number): void {
    for (const [accountId, at] of this.rungAt) if (now - at >= this.quietMs) this.rungAt.delete(accountId)
  }
}

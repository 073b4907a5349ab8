import type { NatsConnection } from '@nats-io/transport-node'
import type { JetStreamManager, StreamInfo } from '@nats-io/jetstream'
import type { Logger } from 'pino'
import type { MatsMetrics } from '../../src/infra/metrics/mats-metrics.js'
import { stepDownDispatchLeader } from '../../src/infra/nats/dispatch-stream.js'

/**
 * How long the dispatch stream's source may go unheard before a worker has the stream's leader
 * step down: the source's consumer sends a heartbeat every second. Each worker adds up to
 * SILENT_SPREAD_MS of its own, so that one asks first and the others find a new leader.
 */
export const SOURCE_SILENT_MS = 5_000
const SILENT_SPREAD_MS = 4_000
/** At most one step-down per worker in this long: a new leader's setup may still fail once. */
const STEP_DOWN_EVERY_MS = 15_000

/**
 * Watches the dispatch stream's source of TaskCreated (ADR 0069). When the task stream's
 * leader is lost, the source's consumer goes with it; nats-server notices within 10 s and sets
 * it up again, and a setup that fails (no task stream leader yet) waits 10 s, then 20 s more,
 * and so on: new tasks waited 21 to 46 s after a leader was killed. A replicated dispatch
 * stream's new leader sets its source up within a second: a worker that finds the source
 * silent asks for one.
 */
export class DispatchSourceWatch {
  private readonly silentMs = SOURCE_SILENT_MS + Math.random() * SILENT_SPREAD_MS
  /** The leader whose source has not been heard since it took over, and since when. */
  private unheard: { leader: string; since: number } | null = null
  private steppedDownAt = Number.NEGATIVE_INFINITY
  private stepping = false

  constructor(
    private readonly nc: NatsConnection,
    private readonly jsm: JetStreamManager,
    private readonly timeoutMs: number,
    private readonly metrics: Pick<MatsMetrics, 'dispatchLeaderSteppedDown'>,
    private readonly log: Logger,
  ) {}

  /** The dispatch stream's state as the turns read it, once a second. Never rejects. */
  async check(info: StreamInfo): Promise<void> {
    const leader = info.cluster?.leader
    const source = info.sources?.[0]
    // One server: no other replica to take over, and nothing that loses the source but a restart.
    if (!leader || !info.cluster?.replicas?.length || !source || this.stepping) return
    const silentFor = this.silentFor(leader, source.active)
    const now = performance.now()
    if (silentFor < this.silentMs || now - this.steppedDownAt < STEP_DOWN_EVERY_MS) return
    this.steppedDownAt = now
    this.stepping = true
    this.log.warn(
      { leader, silentMs: Math.round(silentFor), lag: source.lag, error: source.error?.description },
      "the dispatch stream's source is silent; asking its leader to step down so that a new one sets it up again",
    )
    try {
      await stepDownDispatchLeader(this.nc, this.jsm, this.timeoutMs)
      this.metrics.dispatchLeaderSteppedDown()
    } catch (err) {
      this.log.warn({ err }, "could not have the dispatch stream's leader step down; the server sets its source up again on its own")
    } finally {
      this.stepping = false
    }
  }

  /** How long the source has gone unheard: `active` says, or, never heard (-1), since this leader was first seen so. */
  private silentFor(leader: string, activeNanos: number): number {
    if (activeNanos >= 0) {
      this.unheard = null
      return activeNanos / 1e6
    }
    if (this.unheard?.leader !== leader) this.unheard = { leader, since: performance.now() }
    return performance.now() - this.unheard.since
  }
}

import type { JetStreamManager, StreamInfo } from '@nats-io/jetstream'
import type { NatsConnection } from '@nats-io/transport-node'
import type { Logger } from 'pino'
import type { MatsMetrics } from '../../src/infra/metrics/mats-metrics.js'
import { stepDownDispatchLeader } from '../../src/infra/nats/dispatch-stream.js'
import { streamOf } from '../../src/infra/nats/subjects.js'
import { FRESH_MEMORY, type StepDownLimits, stepDownDue } from './dispatch-source-due.js'

/**
 * How long the dispatch stream's source may go unheard before a worker has the stream's leader
 * step down: the source's consumer sends a heartbeat every second. Each worker adds up to
 * SILENT_SPREAD_MS of its own, so that one asks first and the others find a new leader.
 */
export const SOURCE_SILENT_MS = 5_000
const SILENT_SPREAD_MS = 4_000
/**
 * A leader is never asked before it has led this long (nats-server's own check of its sources
 * comes as often): however many workers watch, the leadership moves at most once in as long.
 */
export const LEADER_SETTLES_MS = 10_000
/** At most one ask per worker in this long. */
const ASK_EVERY_MS = 15_000

/**
 * Watches the dispatch stream's source of TaskCreated (ADR 0069). When the task stream's
 * leader is lost, the source's consumer goes with it; nats-server notices within 10 s and sets
 * it up again, and a setup that fails (no task stream leader yet) is tried again 10 s later,
 * then 20 s after that: new tasks waited about 20 s after a leader was killed. A replicated
 * dispatch stream's new leader sets its source up within a second: a worker that finds the
 * source silent asks for one, when the task stream has a leader to source from and another
 * replica is current.
 */
export class DispatchSourceWatch {
  private readonly limits: StepDownLimits = {
    silentMs: SOURCE_SILENT_MS + Math.random() * SILENT_SPREAD_MS,
    leaderSettlesMs: LEADER_SETTLES_MS,
    askEveryMs: ASK_EVERY_MS,
  }
  private memory = FRESH_MEMORY
  private asking = false
  private stopped = false

  constructor(
    private readonly nc: NatsConnection,
    private readonly jsm: JetStreamManager,
    private readonly timeoutMs: number,
    private readonly metrics: Pick<MatsMetrics, 'dispatchLeaderSteppedDown'>,
    private readonly log: Logger,
  ) {}

  /** The dispatch stream's state as the turns read it, once a second. Never rejects. */
  async check(info: StreamInfo): Promise<void> {
    if (this.asking || this.stopped || !this.due(info)) return
    this.asking = true
    try {
      if (!(await this.tasksLed())) return
      this.memory = { ...this.memory, askedAt: performance.now() }
      const source = info.sources?.[0]
      this.log.warn(
        { leader: info.cluster?.leader, activeNs: source?.active, lag: source?.lag, error: source?.error?.description },
        "the dispatch stream's source is silent; asking its leader to step down so that a new one sets it up again",
      )
      await stepDownDispatchLeader(this.nc, this.jsm, this.timeoutMs)
      this.metrics.dispatchLeaderSteppedDown('stepped')
    } catch (err) {
      if (this.stopped) return
      this.metrics.dispatchLeaderSteppedDown('refused')
      this.log.warn({ err }, "could not have the dispatch stream's leader step down; the server sets its source up again on its own")
    } finally {
      this.asking = false
    }
  }

  stop(): void {
    this.stopped = true
  }

  private due(info: StreamInfo): boolean {
    const { due, memory } = stepDownDue(info, this.memory, { monotonicMs: performance.now(), wallMs: Date.now() }, this.limits)
    this.memory = memory
    return due
  }

  /** Whether the task stream has a leader: without one, a new dispatch leader could not set the source up either. */
  private async tasksLed(): Promise<boolean> {
    const tasks = await this.jsm.streams.info(streamOf('task'))
    return Boolean(tasks.cluster?.leader)
  }
}

import type { Logger } from 'pino'
import type { AppContext } from '../../src/app-context.js'
import { provisioned } from '../../src/infra/nats/provisioning.js'
import { WorkerHeartbeats } from '../../src/infra/nats/worker-heartbeats.js'

/**
 * This worker's heartbeat, and the in-progress acks of every message it holds, on one timer:
 * both tell NATS and the other workers that its tasks are not abandoned.
 */
export class WorkerLiveness {
  private beats: WorkerHeartbeats | undefined
  private beatInterval = 0
  private timer: NodeJS.Timeout | undefined

  constructor(
    private readonly infra: AppContext,
    private readonly workerId: string,
    private readonly ackWaitMs: number,
    /** In-progress acks for every message held. */
    private readonly touchMessages: () => void,
    private readonly stopping: AbortSignal,
    private readonly log: Logger,
  ) {}

  get heartbeats(): WorkerHeartbeats {
    if (!this.beats) throw new Error('the worker has not started')
    return this.beats
  }

  async start(): Promise<void> {
    this.beats = await WorkerHeartbeats.open(this.infra.js, this.infra.config.NATS_STREAM_REPLICAS)
    this.beatInterval = Math.max(250, Math.min(this.ackWaitMs / 3, 10_000))
    // Idempotent, and the bucket may just have been made on a server busy with other starts.
    await provisioned("write this worker's first heartbeat", () => this.beat())
    this.timer = setInterval(() => this.touchAll(), this.beatInterval)
    void this.touchOnReconnect()
  }

  /** Stops the timer; `forget` then removes the heartbeat, so no beat in flight writes it back. */
  stop(): void {
    clearInterval(this.timer)
  }

  async forget(): Promise<void> {
    await this.beats?.forget(this.workerId).catch(() => undefined)
  }

  /** Both only matter when they reach NATS: a failed beat is logged, and the next one tries again. */
  private touchAll(): void {
    this.touchMessages()
    this.beat().catch((err: unknown) => this.log.warn({ err }, 'could not say this worker is alive'))
  }

  /**
   * Alive for one ack wait and one more beat from each beat (one every third of an ack wait):
   * a live worker cut off from NATS for up to an ack wait (a restart, an election, a starved
   * CPU) is not judged dead; a dead one is, about 4/3 of an ack wait after its last beat.
   */
  private async beat(): Promise<void> {
    await this.beats?.beat(this.workerId, this.ackWaitMs + this.beatInterval)
  }

  /** Right after NATS comes back, before the server redelivers what it thinks abandoned. */
  private async touchOnReconnect(): Promise<void> {
    for await (const status of this.infra.nc.status()) {
      if (this.stopping.aborted) return
      if (status.type === 'reconnect') this.touchAll()
    }
  }
}

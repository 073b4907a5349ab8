import { JetStreamApiCodes, JetStreamApiError, JetStreamError, type Consumer, type ConsumerMessages, type JetStreamManager } from '@nats-io/jetstream'
import { streamOf } from '../../src/infra/nats/subjects.js'
import { provisioned } from '../../src/infra/nats/provisioning.js'
import { pause, REFRESH_MS, RETRY_MS, type PullLoopDeps } from './pull-loop.js'

/** The durable over every TaskCreated in arrival order that versions before per-account dispatch (ADR 0052) made. */
export const WORKER_CONSUMER = 'mats-worker'

const STREAM = streamOf('task')
const FETCH_EXPIRES_MS = 1000

/**
 * The upgrade's drain (ADR 0052): a worker that finds `mats-worker` left by an older version
 * pulls what it still holds, in arrival order, beside the per-account turns, until it has
 * nothing pending or unacknowledged; then removes it. Gone, it is never made again.
 */
export class ArrivalPull {
  private fetching: ConsumerMessages | undefined
  private drained = false

  constructor(private readonly deps: PullLoopDeps) {}

  /**
   * Pulls until stopped or drained. Never rejects: a failure (NATS busy or away) is logged and
   * retried; the consumer gone (removed by another worker's drain, or by hand) ends it.
   */
  async run(): Promise<void> {
    let consumer: Consumer | null = null
    while (!this.deps.stopping.aborted && !this.drained) {
      const room = this.deps.room()
      if (room <= 0) {
        // Beside the turns, the two loops share one wake: neither waits for it alone.
        await this.deps.wake.wait(REFRESH_MS)
        continue
      }
      try {
        consumer ??= await this.deps.infra.js.consumers.get(STREAM, WORKER_CONSUMER)
        await this.pull(consumer, room)
      } catch (err) {
        if (this.deps.stopping.aborted) break
        if (isConsumerGone(err)) {
          this.drained = true
          return
        }
        this.deps.log.error({ err }, 'fetching tasks from mats-worker failed; retrying')
        await pause(RETRY_MS)
      }
    }
  }

  /** Ends the pull in flight, so `run` sees the stop at once rather than at the pull's expiry. */
  stop(): void {
    void this.fetching?.close()
  }

  private async pull(consumer: Consumer, room: number): Promise<void> {
    this.fetching = await consumer.fetch({ max_messages: room, expires: FETCH_EXPIRES_MS })
    for await (const msg of this.fetching) this.deps.deliver(msg)
    await this.removeWhenEmpty()
  }

  /** The upgrade's end: once nothing is pending or unacknowledged on `mats-worker`, it is deleted. */
  private async removeWhenEmpty(): Promise<void> {
    const { jsm } = this.deps.infra
    const info = await jsm.consumers.info(STREAM, WORKER_CONSUMER)
    if (info.num_pending > 0 || info.num_ack_pending > 0) return
    await jsm.consumers.delete(STREAM, WORKER_CONSUMER).catch(() => undefined)
    this.drained = true
    this.deps.log.info('the mats-worker consumer is drained and removed: tasks come from the dispatch stream alone')
  }
}

/** The consumer is not there (any more): looked up, or a pull waiting when it went (status 409 "consumer deleted"). */
function isConsumerGone(err: unknown): boolean {
  if (err instanceof JetStreamApiError) return err.code === JetStreamApiCodes.ConsumerNotFound
  return err instanceof JetStreamError && err.message === 'consumer deleted'
}

/** Whether `mats-worker` exists: a worker that finds it drains it first (the upgrade). */
export async function workerConsumerExists(jsm: JetStreamManager): Promise<boolean> {
  const info = await provisioned('look up the worker consumer', () => jsm.consumers.info(STREAM, WORKER_CONSUMER)).catch(() => null)
  return info !== null
}

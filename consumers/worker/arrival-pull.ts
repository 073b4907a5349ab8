import { AckPolicy, DeliverPolicy, JetStreamApiCodes, JetStreamApiError, JetStreamError, type Consumer, type ConsumerMessages, type JetStreamManager } from '@nats-io/jetstream'
import { eventTypeSubjects, streamOf } from '../../src/infra/nats/subjects.js'
import { ensureDurableConsumer, provisioned } from '../../src/infra/nats/provisioning.js'
import { pause, REFRESH_MS, RETRY_MS, type PullLoopDeps } from './pull-loop.js'

export const WORKER_CONSUMER = 'mats-worker'

const STREAM = streamOf('task')
const NANOS_PER_MS = 1_000_000
const FETCH_EXPIRES_MS = 1000

/**
 * `arrival`: the one durable every worker shares, made again when it is gone.
 * `drain`: an upgrade to per-account dispatch found it; it is read until empty, then removed, never made again (ADR 0052).
 */
export type ArrivalMode = 'arrival' | 'drain'

/** Makes `mats-worker`, the durable over every TaskCreated in arrival order (idempotent). */
export async function ensureWorkerConsumer(jsm: JetStreamManager, ackWaitMs: number): Promise<void> {
  const config = {
    durable_name: WORKER_CONSUMER,
    filter_subject: eventTypeSubjects('task', 'TaskCreated'),
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: ackWaitMs * NANOS_PER_MS,
    max_deliver: -1,
    max_ack_pending: -1,
  }
  await ensureDurableConsumer(jsm, STREAM, config, 'the worker consumer')
}

/** Pulls TaskCreated from `mats-worker` in arrival order while the worker's lookahead has room. */
export class ArrivalPull {
  private fetching: ConsumerMessages | undefined
  private drained = false

  constructor(
    private readonly deps: PullLoopDeps,
    private readonly mode: ArrivalMode,
  ) {}

  /**
   * Pulls until stopped (or drained). Never rejects: a failure (NATS busy or away, the consumer
   * deleted by hand) is logged and retried with the consumer looked up, or made, again, so
   * a worker that started keeps taking work once NATS answers.
   */
  async run(): Promise<void> {
    let consumer: Consumer | null = null
    while (!this.deps.stopping.aborted && !this.drained) {
      const room = this.deps.room()
      if (room <= 0) {
        // Beside the turns (an upgrade's drain), the two loops share one wake: neither waits for it alone.
        await this.deps.wake.wait(this.mode === 'drain' ? REFRESH_MS : undefined)
        continue
      }
      try {
        consumer ??= await this.consumer()
        await this.pull(consumer, room)
      } catch (err) {
        if (this.deps.stopping.aborted) break
        if (this.mode === 'drain' && isConsumerGone(err)) {
          this.drained = true
          return
        }
        this.deps.log.error({ err }, 'fetching tasks failed; retrying')
        if (isConsumerGone(err)) consumer = null
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
    if (this.mode === 'drain') await this.removeWhenEmpty()
  }

  private async consumer(): Promise<Consumer> {
    const { js, jsm } = this.deps.infra
    try {
      return await js.consumers.get(STREAM, WORKER_CONSUMER)
    } catch (err) {
      // Per-account dispatch only drains `mats-worker`: gone, it is not made again.
      if (!isConsumerGone(err) || this.mode === 'drain') throw err
      await ensureWorkerConsumer(jsm, this.deps.ackWaitMs)
      return js.consumers.get(STREAM, WORKER_CONSUMER)
    }
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

/** The worker consumer was deleted (by hand, say): looked up again, it is made anew. */
function isConsumerGone(err: unknown): boolean {
  if (err instanceof JetStreamApiError) return err.code === JetStreamApiCodes.ConsumerNotFound
  // A pull waiting when it went is ended with the status 409 "consumer deleted".
  return err instanceof JetStreamError && err.message === 'consumer deleted'
}

/** Whether `mats-worker` exists: a per-account worker that finds it drains it first (the upgrade). */
export async function workerConsumerExists(jsm: JetStreamManager): Promise<boolean> {
  const info = await provisioned('look up the worker consumer', () => jsm.consumers.info(STREAM, WORKER_CONSUMER)).catch(() => null)
  return info !== null
}

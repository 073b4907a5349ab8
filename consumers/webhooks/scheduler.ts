import type { Logger } from 'pino'
import type { QueueChange, WebhookQueue } from '../../src/infra/nats/webhook-queue.js'
import { AccountLane } from './account-lane.js'
import type { Deliverer } from './deliverer.js'
import type { Slots } from './slots.js'

/**
 * Webhook deliveries shared fairly across accounts in one process (ADR 0033): one lane per
 * account with jobs queued, learnt from the queue index's watch, each taking the process's
 * slots in turn. Every webhooks process runs one; leases (ADR 0027) keep them from attempting
 * the same job or passing an account's caps.
 */
export class DeliveryScheduler {
  private readonly lanes = new Map<string, { lane: AccountLane; running: Promise<void> }>()
  private watching: { stop: () => void; done: Promise<void> } | undefined
  private stopping = false

  constructor(
    private readonly queue: WebhookQueue,
    private readonly deliverer: Deliverer,
    private readonly slots: Slots,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    this.watching = await this.queue.watch((change) => this.onChange(change))
    this.watching.done.then(
      () => this.stopping || this.log.error('the webhook queue index watch ended; deliveries stop until restart'),
      (err: unknown) => this.log.error({ err }, 'the webhook queue index watch failed; deliveries stop until restart'),
    )
  }

  /** Stops starting attempts and waits for those under way. */
  async stop(): Promise<void> {
    this.stopping = true
    this.watching?.stop()
    this.slots.close()
    for (const { lane } of this.lanes.values()) lane.stop()
    await Promise.allSettled([...this.lanes.values()].map(({ running }) => running))
    await this.deliverer.drain()
  }

  /** How many accounts have a lane here (for tests and logs). */
  get accounts(): number {
    return this.lanes.size
  }

  private onChange(change: QueueChange): void {
    if (this.stopping) return
    const known = this.lanes.get(change.accountId)
    if (!change.queued) {
      known?.lane.emptied(change.webhookId, change.revision)
      return
    }
    if (known) {
      known.lane.queued(change.webhookId, change.revision)
      return
    }
    const lane: AccountLane = new AccountLane(change.accountId, { queue: this.queue, deliverer: this.deliverer, slots: this.slots, log: this.log }, () => {
      if (this.lanes.get(change.accountId)?.lane === lane) this.lanes.delete(change.accountId)
    })
    lane.queued(change.webhookId, change.revision)
    const running = lane.run().catch((err: unknown) => this.log.error({ err, accountId: change.accountId }, 'a webhook delivery lane failed'))
    this.lanes.set(change.accountId, { lane, running })
  }
}

import type { Consumer, ConsumerMessages, JsMsg } from '@nats-io/jetstream'
import type { Logger } from 'pino'
import { settleFailed, type FailedMessagePolicy } from '../../src/infra/nats/failed-messages.js'

const FETCH_EXPIRES_MS = 1000

/**
 * Pulls from one durable consumer and handles up to `concurrency` messages at once. A
 * handler settles its message (ack, or nak with a delay); one that throws has its message
 * settled by `failed` (failed-messages.ts): handed back after an outage, so that it delays
 * work without losing it, and given up and recorded when it can never be handled.
 */
export class PullLoop {
  private stopping = false
  private readonly inFlight = new Set<Promise<void>>()
  private fetching: ConsumerMessages | undefined
  private wake: (() => void) | undefined
  private loop: Promise<void> | undefined

  constructor(
    private readonly consumer: () => Promise<Consumer>,
    private readonly options: { readonly concurrency: number; readonly failed: FailedMessagePolicy },
    private readonly handle: (msg: JsMsg) => Promise<void>,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.loop = this.run()
  }

  /** Stops pulling and waits for the messages in hand. */
  async stop(): Promise<void> {
    this.stopping = true
    this.wake?.()
    void this.fetching?.close()
    await this.loop
    await Promise.allSettled(this.inFlight)
  }

  private async run(): Promise<void> {
    let consumer: Consumer | undefined
    while (!this.stopping) {
      const room = this.options.concurrency - this.inFlight.size
      if (room <= 0) {
        await new Promise<void>((resolve) => {
          this.wake = resolve
        })
        continue
      }
      try {
        consumer ??= await this.consumer()
        this.fetching = await consumer.fetch({ max_messages: room, expires: FETCH_EXPIRES_MS })
        for await (const msg of this.fetching) this.dispatch(msg)
      } catch (err) {
        if (this.stopping) break
        this.log.error({ err }, 'fetching failed; retrying')
        await new Promise((r) => setTimeout(r, FETCH_EXPIRES_MS))
      }
    }
  }

  private dispatch(msg: JsMsg): void {
    if (this.stopping) {
      msg.nak()
      return
    }
    const handled = this.handle(msg)
      .then(
        () => this.options.failed.failures.forget(msg),
        (err: unknown) => settleFailed(msg, err, this.options.failed),
      )
      .finally(() => {
        this.inFlight.delete(handled)
        this.wake?.()
      })
    this.inFlight.add(handled)
  }
}

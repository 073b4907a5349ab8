import type { NatsConnection } from '@nats-io/transport-node'
import { EventStoreUnavailableError } from './event-store-errors.js'

/**
 * Whether this process is connected to NATS right now. While it is not, a request fails at
 * once with 503 instead of waiting out one timeout per NATS step (invariant 11); the
 * connection keeps reconnecting in the background.
 */
export class NatsLink {
  private connected = true
  private readonly reconnected = new Set<() => void>()

  constructor(nc: NatsConnection) {
    void this.follow(nc)
  }

  get isUp(): boolean {
    return this.connected
  }

  /** Throws EventStoreUnavailableError while NATS is out of reach. */
  assertUp(): void {
    if (!this.connected) throw new EventStoreUnavailableError('not connected to NATS (reconnecting)')
  }

  /** Calls `listener` at each reconnection, until the function returned is called. */
  onReconnect(listener: () => void): () => void {
    this.reconnected.add(listener)
    return () => this.reconnected.delete(listener)
  }

  private async follow(nc: NatsConnection): Promise<void> {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect' || status.type === 'close') this.connected = false
      else if (status.type === 'reconnect') {
        this.connected = true
        for (const listener of this.reconnected) listener()
      }
    }
    this.connected = false
  }
}

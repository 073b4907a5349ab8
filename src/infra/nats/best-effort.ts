import type { NatsConnection, PublishOptions } from '@nats-io/transport-node'

/**
 * Publishes on core NATS, asking no answer, for a message whose loss the reader makes good some
 * other way (a doorbell, a removal the next request redoes). False when the connection is
 * closing or draining (the process stops), where nats.js throws: such a message is never the
 * reason a command that has already stored its events fails.
 */
export function publishBestEffort(nc: Pick<NatsConnection, 'publish'>, subject: string, options?: Partial<PublishOptions>): boolean {
  try {
    nc.publish(subject, undefined, options)
    return true
  } catch {
    return false
  }
}

import type { Consumer, ConsumerMessages } from '@nats-io/jetstream'

/**
 * Ends an ordered consumer for good. In nats.js 3.4 `close()` only stops reading: the server
 * keeps the consumer for its inactive threshold (5 minutes), so every wait, restart or view
 * would leave one behind. `delete()` removes the one the consumer currently reads from (an
 * ordered consumer deletes its predecessors itself when it recreates one). A delete that
 * fails (NATS away) is left to that threshold.
 *
 * `close()` is not awaited: its promise settles only once something reads the iterator to its
 * end, which never happens to one closed before it was read (a runner stopped while starting).
 * It unsubscribes at once all the same.
 */
export async function closeOrdered(consumer: Consumer, messages: ConsumerMessages | undefined): Promise<void> {
  void messages?.close().catch(() => undefined)
  await consumer.delete().catch(() => false)
}

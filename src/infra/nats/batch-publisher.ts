import type { NatsConnection } from '@nats-io/transport-node'
import { isBatchRefusedWhole, publishAtomically, type BatchAck, type BatchMessage } from './atomic-batch.js'
import { BatchSlots, type SlotObserver } from './batch-slots.js'

/** The longest pause between two tries of a batch the server refused for lack of room. */
const MAX_PAUSE_MS = 50

/** Told of the slots' waits and of the batches sent again (MatsMetrics, docs/operations.md#metrics). */
export interface BatchObserver extends SlotObserver {
  /** A batch the server refused for lack of room (REFUSED_WHOLE), sent again. */
  resent(stream: string): void
}

/**
 * Atomic batches within deadlines (ADR 0034): at most `batchesPerStream` of this process open
 * on a stream at once (BatchSlots), and a batch the server refuses whole (REFUSED_WHOLE: the
 * stream's or the server's open batches are at their limit, other processes' included) sent
 * again as a new batch until its deadline. Sending it again is safe: the server dropped the
 * refused batch whole, so the same `Nats-Msg-Id`s are not in its duplicate window, and the
 * expected-sequence guards are those the decision saw: should another writer have moved the
 * aggregate meanwhile, the new batch fails as a conflict, as it would have the first time.
 */
export class BatchPublisher {
  private readonly slots: BatchSlots

  constructor(
    private readonly nc: NatsConnection,
    batchesPerStream: number,
    private readonly observer?: BatchObserver,
  ) {
    this.slots = new BatchSlots(batchesPerStream, observer)
  }

  /**
   * Stores `messages` on `stream` all or none: waits up to `timeoutMs` for a slot, then gives
   * the batch, sent again while refused, `timeoutMs` more; at most twice `timeoutMs` in all, as
   * a plain request caught by an outage mid-way. The wait is this process's own queue: a burst
   * of batches waits its turn here rather than at the server (measured in ADR 0034).
   */
  publish(stream: string, messages: readonly BatchMessage[], timeoutMs: number): Promise<BatchAck> {
    return this.slots.hold(stream, Date.now() + timeoutMs, () => this.untilStored(stream, messages, Date.now() + timeoutMs))
  }

  private async untilStored(stream: string, messages: readonly BatchMessage[], deadline: number): Promise<BatchAck> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await publishAtomically(this.nc, messages, Math.max(1, deadline - Date.now()))
      } catch (err) {
        // Spread out: the batches refused together would otherwise come back together.
        const pause = Math.random() * Math.min(MAX_PAUSE_MS, 5 * attempt)
        if (!isBatchRefusedWhole(err) || Date.now() + pause >= deadline) throw err
        await new Promise((resolve) => setTimeout(resolve, pause))
        this.observer?.resent(stream)
      }
    }
  }
}

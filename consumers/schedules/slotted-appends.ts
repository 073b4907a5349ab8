import type { EventStore } from '../../src/infra/nats/event-store.js'
import type { Slots } from '../webhooks/slots.js'

type PairAppends = Pick<EventStore, 'appendPair' | 'appendPairs'>

/**
 * The event store's pair appends, each holding one of `slots` while it is sent: the scheduler's
 * atomic batches in flight stay within the process's batch slots (NATS_BATCHES_PER_STREAM),
 * and the ones beyond wait here in order, with no deadline, instead of timing out in the
 * publisher's queue. The slots are never closed: an append asked for is an append of a tick
 * whose checks are done (its budget granted, its identity entry taken), let through at a stop.
 */
export class SlottedAppends implements PairAppends {
  constructor(
    private readonly events: PairAppends,
    private readonly slots: Slots,
  ) {}

  appendPair: PairAppends['appendPair'] = (first, second, options) => this.inSlot(() => this.events.appendPair(first, second, options))

  appendPairs: PairAppends['appendPairs'] = (pairs) => this.inSlot(() => this.events.appendPairs(pairs))

  private async inSlot<T>(append: () => Promise<T>): Promise<T> {
    const slot = await this.slots.reserve()
    try {
      return await append()
    } finally {
      slot?.release()
    }
  }
}

import type { RecordedEvent } from '../../src/domain/message.js'
import type { PoisonMessages } from '../../src/infra/mongo/poison-messages.js'
import { MAX_HANDLING_ATTEMPTS } from '../../src/infra/nats/failed-messages.js'
import type { Read } from '../../src/infra/nats/log-reader.js'
import { isDependencyUnavailable } from '../../src/infra/unavailable.js'
import { EventFanOutError } from './fan-out.js'

const CONSUMER = 'webhooks:fan-out'

/**
 * What one account's fan-out lane gives up on, so that nothing holds up the account for good:
 * an event that fails MAX_HANDLING_ATTEMPTS times for another reason than an outage, and the
 * messages of its log that are not events; each recorded as poison, as the projectors record them.
 */
export class FanOutFailures {
  private readonly failures = new Map<number, number>()
  private readonly givenUp = new Set<number>()

  constructor(private readonly poison: PoisonMessages) {}

  /** The page's jobs made by `fanOut`, without the events given up; rethrows its failure once counted. */
  async fanOut(events: readonly RecordedEvent[], fanOut: (events: readonly RecordedEvent[]) => Promise<void>): Promise<void> {
    try {
      await fanOut(events.filter((event) => !this.givenUp.has(event.seq)))
    } catch (err) {
      if (!(err instanceof EventFanOutError) || isDependencyUnavailable(err.cause)) throw err
      const { seq, subject } = err.event
      const failed = (this.failures.get(seq) ?? 0) + 1
      this.failures.set(seq, failed)
      if (failed < MAX_HANDLING_ATTEMPTS) throw err
      this.failures.delete(seq)
      this.givenUp.add(seq)
      const reason = `given up after ${failed} attempts: ${err.cause instanceof Error ? err.cause.message : String(err.cause)}`
      await this.poison.record({ stream: 'MATS_TASKS', seq, subject, reason }, CONSUMER)
      throw err
    }
  }

  /** Messages of the account that are not events: skipped, and recorded once. */
  async recordUndecodable(read: Read): Promise<void> {
    for (const { seq, subject, reason } of read.undecodable) await this.poison.record({ stream: 'MATS_TASKS', seq, subject, reason }, CONSUMER)
  }

  /** The cursor moved past `seq`: what was given up before it is no longer met. */
  passed(seq: number): void {
    for (const given of this.givenUp) if (given <= seq) this.givenUp.delete(given)
  }
}

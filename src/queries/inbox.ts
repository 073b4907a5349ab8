import type { RecordedEvent } from '../domain/message.js'

/** Its reader fell too far behind: the feed ends and the client resumes with Last-Event-ID. */
export class InboxOverflowError extends Error {
  override readonly name = 'InboxOverflowError'
}

/**
 * The events a shared consumer handed to one open feed, queued until the feed writes them.
 * `push` never waits: past `limit` queued events the inbox ends instead, so a client that
 * reads slowly (or a long catch-up) costs only its own feed.
 */
export class Inbox {
  private queue: RecordedEvent[] = []
  private ended: Error | null = null
  private wake: (() => void) | null = null

  constructor(private readonly limit: number) {}

  push(event: RecordedEvent): void {
    if (this.ended) return
    if (this.queue.length >= this.limit) this.end(new InboxOverflowError(`the client fell more than ${this.limit} events behind`))
    else this.queue.push(event)
    this.wake?.()
  }

  /** No more events: the feed's reader sees `reason` thrown once it has taken what was queued. */
  end(reason: Error): void {
    this.ended ??= reason
    this.wake?.()
  }

  /** The queued events and those still to come, in the order pushed, until `signal` aborts; throws when the inbox ended. */
  async *events(signal: AbortSignal): AsyncGenerator<RecordedEvent> {
    for (;;) {
      const taken = this.queue
      this.queue = []
      yield* taken
      if (signal.aborted) return
      if (this.ended) throw this.ended
      if (this.queue.length === 0) await this.arrival(signal)
    }
  }

  private arrival(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        this.wake = null
        signal.removeEventListener('abort', done)
        resolve()
      }
      this.wake = done
      signal.addEventListener('abort', done, { once: true })
    })
  }
}

/**
 * This process's attempt slots (`WEBHOOKS_CONCURRENCY`), handed out first come first served.
 * Each account waits for one slot at a time (its lane, scheduler.ts), so when every slot is
 * taken a freed one goes to the account that has waited longest: round robin across accounts
 * (ADR 0033). Retries may hold only part of the slots, so first attempts always find room (ADR 0027).
 */
export class Slots {
  private taken = 0
  private retries = 0
  private closed = false
  private readonly waiting: ((slot: Slot | null) => void)[] = []

  constructor(
    private readonly size: number,
    private readonly retrySize: number,
  ) {}

  /** A slot when it is this caller's turn; null once closing. */
  reserve(): Promise<Slot | null> {
    if (this.closed) return Promise.resolve(null)
    if (this.taken < this.size && this.waiting.length === 0) return Promise.resolve(this.grant())
    return new Promise((resolve) => this.waiting.push(resolve))
  }

  /** Wakes every waiter with null: nothing new starts. */
  close(): void {
    this.closed = true
    for (const resolve of this.waiting.splice(0)) resolve(null)
  }

  get inUse(): number {
    return this.taken
  }

  private grant(): Slot {
    this.taken++
    let released = false
    let retry = false
    return {
      canRetry: () => retry || this.retries < this.retrySize,
      markRetry: () => {
        if (retry) return
        this.retries++
        retry = true
      },
      release: () => {
        if (released) return
        released = true
        this.taken--
        if (retry) this.retries--
        const next = this.waiting.shift()
        if (next) next(this.grant())
      },
    }
  }
}

export interface Slot {
  /** Whether a retry may use this slot: the retries' share has room. */
  canRetry(): boolean
  /** Counts this slot among the retries until it is released. */
  markRetry(): void
  release(): void
}

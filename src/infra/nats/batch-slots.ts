/** Told how long each batch waited for its slot (the metrics, docs/operations.md). */
export interface SlotObserver {
  /** A batch got its slot after `seconds` (0 when one was free); `queued` when it had to wait in line. */
  slotTaken(stream: string, seconds: number, queued: boolean): void
  /** A batch waited for a slot past its deadline: it fails as unavailable. */
  slotTimedOut(stream: string): void
}

/**
 * How many atomic batches this process keeps open on one stream at once (ADR 0034). nats-server
 * holds at most 50 open batches per stream for all its clients together and refuses the next
 * one; a process that stays well under that leaves room for the others, and its own bursts
 * wait here, in order, instead of being refused by the server.
 */
export class BatchSlots {
  private readonly open = new Map<string, number>()
  private readonly waiting = new Map<string, Waiter[]>()

  constructor(
    private readonly perStream: number,
    private readonly observer?: SlotObserver,
  ) {
    if (!Number.isInteger(perStream) || perStream < 1) throw new RangeError(`batch slots per stream must be a positive integer, not ${perStream}`)
  }

  /** Runs `work` holding one of the stream's slots; waits for one until `deadline` (epoch ms), then fails. */
  async hold<T>(stream: string, deadline: number, work: () => Promise<T>): Promise<T> {
    const asked = performance.now()
    const queued = !this.free(stream)
    try {
      await this.take(stream, deadline)
    } catch (err) {
      this.observer?.slotTimedOut(stream)
      throw err
    }
    this.observer?.slotTaken(stream, queued ? (performance.now() - asked) / 1000 : 0, queued)
    try {
      return await work()
    } finally {
      this.give(stream)
    }
  }

  /** Slots taken on a stream now (for tests and metrics). */
  taken(stream: string): number {
    return this.open.get(stream) ?? 0
  }

  private free(stream: string): boolean {
    return (this.open.get(stream) ?? 0) < this.perStream
  }

  private take(stream: string, deadline: number): Promise<void> {
    if (this.free(stream)) {
      this.open.set(stream, this.taken(stream) + 1)
      return Promise.resolve()
    }
    return new Promise<void>((resolve, reject) => {
      const queue = this.waiting.get(stream) ?? []
      this.waiting.set(stream, queue)
      const waiter: Waiter = {
        resolve,
        timer: setTimeout(
          () => {
            queue.splice(queue.indexOf(waiter), 1)
            reject(new Error(`no atomic batch slot free on ${stream} in time (${this.perStream} in flight)`))
          },
          Math.max(0, deadline - Date.now()),
        ),
      }
      queue.push(waiter)
    })
  }

  /** Hands the slot to the longest waiter, if any: the count stays, the slot changes hands. */
  private give(stream: string): void {
    const next = this.waiting.get(stream)?.shift()
    if (next) {
      clearTimeout(next.timer)
      next.resolve()
      return
    }
    const open = (this.open.get(stream) ?? 1) - 1
    if (open === 0) this.open.delete(stream)
    else this.open.set(stream, open)
  }
}

interface Waiter {
  readonly resolve: () => void
  readonly timer: NodeJS.Timeout
}

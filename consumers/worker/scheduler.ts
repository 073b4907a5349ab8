import type { Priority } from '../../src/domain/tasks/task.js'

export interface Waiting<T> {
  readonly accountId: string
  readonly priority: Priority
  /** Stream sequence of the TaskCreated: arrival order. */
  readonly seq: number
  readonly item: T
}

const RANK: Record<Priority, number> = { high: 0, normal: 1, low: 2 }

/**
 * Orders the tasks a worker holds: higher priority first; within a priority, the
 * account with the fewest tasks running here, then the one served least recently, so
 * one account's flood cannot starve another; then arrival order. Pure and in memory.
 */
export class TaskScheduler<T> {
  private readonly waiting: Waiting<T>[] = []
  private readonly running = new Map<string, number>()
  private readonly lastServed = new Map<string, number>()
  private readonly waitingByAccount = new Map<string, number>()
  private served = 0

  get size(): number {
    return this.waiting.length
  }

  items(): readonly Waiting<T>[] {
    return this.waiting
  }

  add(entry: Waiting<T>): void {
    this.waiting.push(entry)
    this.waitingByAccount.set(entry.accountId, this.waitingOf(entry.accountId) + 1)
  }

  /** How many tasks of this account wait here. */
  waitingOf(accountId: string): number {
    return this.waitingByAccount.get(accountId) ?? 0
  }

  /** Removes and returns the next task to start, counting it as running for its account. */
  next(): Waiting<T> | undefined {
    let best = -1
    for (let i = 0; i < this.waiting.length; i++) {
      if (best === -1 || this.before(this.waiting[i]!, this.waiting[best]!)) best = i
    }
    if (best === -1) return undefined
    const [entry] = this.waiting.splice(best, 1)
    if (!entry) return undefined
    const left = this.waitingOf(entry.accountId) - 1
    if (left > 0) this.waitingByAccount.set(entry.accountId, left)
    else this.waitingByAccount.delete(entry.accountId)
    this.running.set(entry.accountId, (this.running.get(entry.accountId) ?? 0) + 1)
    this.lastServed.set(entry.accountId, ++this.served)
    return entry
  }

  finished(accountId: string): void {
    const count = (this.running.get(accountId) ?? 1) - 1
    if (count > 0) this.running.set(accountId, count)
    else this.running.delete(accountId)
  }

  /** Empties the queue (on shutdown), returning what was waiting. */
  drain(): Waiting<T>[] {
    this.waitingByAccount.clear()
    return this.waiting.splice(0)
  }

  private before(a: Waiting<T>, b: Waiting<T>): boolean {
    if (RANK[a.priority] !== RANK[b.priority]) return RANK[a.priority] < RANK[b.priority]
    if (a.accountId !== b.accountId) {
      const running = (this.running.get(a.accountId) ?? 0) - (this.running.get(b.accountId) ?? 0)
      if (running !== 0) return running < 0
      const served = (this.lastServed.get(a.accountId) ?? 0) - (this.lastServed.get(b.accountId) ?? 0)
      if (served !== 0) return served < 0
    }
    return a.seq < b.seq
  }
}

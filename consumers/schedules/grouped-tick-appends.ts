import type { FiredAppended, FiredPair, TickAppends } from '../../src/commands/schedules/tick-batch.js'
import { ConcurrencyError } from '../../src/infra/nats/event-store.js'

/**
 * At most this many messages in a merged batch: twice an account's largest batch (100 ticks),
 * well under the server's 1,000, so that a merged batch still ends within NATS_TIMEOUT_MS on a
 * loaded machine; one that fails (NATS slow, an answer in doubt) fails every tick it holds.
 */
export const MERGED_MESSAGES = 400

/**
 * How a request is sent: `merge`, with other such requests in one atomic batch; `own`, as an
 * atomic batch of its own: a pair appended alone, or a request of a merged batch that a guard
 * refused (each goes again on its own, so that only the one whose schedule moved is refused).
 */
type Kind = 'merge' | 'own'

interface Request {
  readonly pairs: readonly FiredPair[]
  kind: Kind
  readonly resolve: (appended: FiredAppended[]) => void
  readonly reject: (err: unknown) => void
}

/**
 * The scheduler's tick appends, group-committed (ADR 0060): at most `slots` atomic batches in
 * flight (within the process's batch slots, NATS_BATCHES_PER_STREAM), and the batches handed in
 * meanwhile wait and leave together in the next free slot, whole, in arrival order, up to
 * MERGED_MESSAGES. A batch costs the server about the same whatever it holds (the floor of
 * `bench:schedules`: 10,000 ticks in batches of 30 pairs took p99 2.4 to 5.6 s, of 100 pairs 1.0
 * to 1.4 s, of 450 pairs 0.8 s), and each account's ticks were at least one batch of their own.
 * Nothing waits while a slot is free. The waiting batches have no deadline here: each is a
 * tick whose checks are done (its budget granted), let through at a stop.
 */
export class GroupedTickAppends implements TickAppends {
  private readonly queue: Request[] = []
  private inFlight = 0

  constructor(
    private readonly appends: TickAppends,
    private readonly slots: number,
  ) {
    if (!Number.isInteger(slots) || slots < 1) throw new RangeError(`a group commit needs at least one slot, not ${slots}`)
  }

  /** Requests waiting for a slot. */
  get waiting(): number {
    return this.queue.length
  }

  together(pairs: readonly FiredPair[]): Promise<FiredAppended[]> {
    return this.enqueue(pairs, 'merge')
  }

  async alone(pair: FiredPair): Promise<FiredAppended> {
    const [appended] = await this.enqueue([pair], 'own')
    if (!appended) throw new Error('a pair appended alone came back without its events')
    return appended
  }

  private enqueue(pairs: readonly FiredPair[], kind: Kind): Promise<FiredAppended[]> {
    return new Promise((resolve, reject) => {
      this.queue.push({ pairs, kind, resolve, reject })
      this.pump()
    })
  }

  private pump(): void {
    while (this.inFlight < this.slots && this.queue.length > 0) {
      const group = this.takeGroup()
      this.inFlight++
      void this.send(group).finally(() => {
        this.inFlight--
        this.pump()
      })
    }
  }

  /** The first request, and the mergeable ones after it while their messages stay within MERGED_MESSAGES. */
  private takeGroup(): Request[] {
    const first = this.queue.shift()
    if (!first) return []
    const group = [first]
    if (first.kind !== 'merge') return group
    let messages = messagesOf(first)
    for (let next = this.queue[0]; next?.kind === 'merge' && messages + messagesOf(next) <= MERGED_MESSAGES; next = this.queue[0]) {
      this.queue.shift()
      messages += messagesOf(next)
      group.push(next)
    }
    return group
  }

  private async send(group: readonly Request[]): Promise<void> {
    const [first] = group
    const [only] = first?.pairs ?? []
    if (group.length === 1 && first?.pairs.length === 1 && only) return this.appends.alone(only).then((appended) => first.resolve([appended]), first.reject)
    try {
      const appended = await this.appends.together(group.flatMap((request) => request.pairs))
      let from = 0
      for (const request of group) {
        request.resolve(appended.slice(from, from + request.pairs.length))
        from += request.pairs.length
      }
    } catch (err) {
      if (group.length > 1 && err instanceof ConcurrencyError) return this.sendEachOnItsOwn(group)
      for (const request of group) request.reject(err)
    }
  }

  /** Nothing of a refused batch was stored: each request again, first in line, as a batch of its own. */
  private sendEachOnItsOwn(group: readonly Request[]): void {
    for (const request of group) request.kind = 'own'
    this.queue.unshift(...group)
  }
}

function messagesOf(request: Request): number {
  return request.pairs.reduce((n, { task, schedule }) => n + task.drafts.length + schedule.drafts.length, 0)
}

import type { AppendOptions, AppendPart } from '../../infra/nats/event-store-types.js'
import { ConcurrencyError, type EventStore } from '../../infra/nats/event-store.js'
import type { Recorded } from '../../domain/message.js'
import { Schedule, type ScheduleEvent } from '../../domain/schedules/schedule.js'
import { Task, type TaskCreated } from '../../domain/tasks/task.js'

/** A fired tick's two decisions: the task's TaskCreated and the schedule's ScheduleFired. */
export interface FiredPair {
  readonly task: AppendPart<TaskCreated>
  readonly schedule: AppendPart<ScheduleEvent>
  readonly options: Omit<AppendOptions, 'expectedVersion'>
}

export type FiredAppended = [Recorded<TaskCreated>[], Recorded<ScheduleEvent>[]]

/** How one tick appends its pair: alone, or with the other ticks of its batch. */
export type AppendFired = (pair: FiredPair) => Promise<FiredAppended>

/** How fired ticks' pairs reach the log: several as one atomic batch (all or none), or one alone. */
export interface TickAppends {
  together(pairs: readonly FiredPair[]): Promise<FiredAppended[]>
  alone(pair: FiredPair): Promise<FiredAppended>
}

/** A fired pair as the event store's two parts: the task's and the schedule's. */
const asParts = ({ task, schedule, options }: FiredPair) => ({ first: { aggregate: Task, part: task }, second: { aggregate: Schedule, part: schedule }, options })

/** One pair appended alone, as one atomic batch. */
export function appendAlone(events: Pick<EventStore, 'appendPair'>): AppendFired {
  return (pair) => {
    const { first, second, options } = asParts(pair)
    return events.appendPair(first, second, options)
  }
}

/** The event store's pair appends, as TickAppends. */
export function tickAppends(events: Pick<EventStore, 'appendPair' | 'appendPairs'>): TickAppends {
  return { together: (pairs) => events.appendPairs(pairs.map(asParts)), alone: appendAlone(events) }
}

interface Waiting {
  readonly pair: FiredPair
  readonly resolve: (appended: FiredAppended) => void
  readonly reject: (err: unknown) => void
}

/**
 * The fired ticks of several schedules of one account, appended as one atomic batch once each
 * member has either handed its pair or finished without one (ADR 0051): the batch's round
 * trips are most of a tick's time. Each schedule's ScheduleFired keeps its own guard; a guard
 * that moved refuses the whole batch, so every pair is then appended alone, and only the one
 * whose schedule moved is refused.
 */
export class TickBatch {
  private readonly waiting: Waiting[] = []
  private open: number

  constructor(
    private readonly appends: TickAppends,
    members: number,
  ) {
    this.open = members
  }

  /** A member's way to append: its first pair joins the batch, any later one is appended alone; `done` when it has decided all it had to. */
  member(): { readonly append: AppendFired; readonly done: () => void } {
    let joined = false
    const leave = () => {
      if (joined) return
      joined = true
      this.open--
      this.flushIfComplete()
    }
    const append: AppendFired = (pair) => {
      if (joined) return this.appends.alone(pair)
      const appended = new Promise<FiredAppended>((resolve, reject) => this.waiting.push({ pair, resolve, reject }))
      leave()
      return appended
    }
    return { append, done: leave }
  }

  private flushIfComplete(): void {
    if (this.open > 0 || this.waiting.length === 0) return
    void this.flush(this.waiting.splice(0))
  }

  /** One pair too goes `together`: a group commit may merge it with other accounts' (ADR 0060). */
  private async flush(batch: readonly Waiting[]): Promise<void> {
    try {
      const appended = await this.appends.together(batch.map(({ pair }) => pair))
      for (const [i, waiting] of batch.entries()) waiting.resolve(appended[i] ?? [[], []])
    } catch (err) {
      if (err instanceof ConcurrencyError && batch.length > 1) return this.alone(batch)
      for (const waiting of batch) waiting.reject(err)
    }
  }

  private alone(batch: readonly Waiting[]): void {
    for (const { pair, resolve, reject } of batch) this.appends.alone(pair).then(resolve, reject)
  }
}

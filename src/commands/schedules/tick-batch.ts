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

/** One pair appended alone, as one atomic batch. */
export function appendAlone(events: Pick<EventStore, 'appendPair'>): AppendFired {
  return ({ task, schedule, options }) => events.appendPair({ aggregate: Task, part: task }, { aggregate: Schedule, part: schedule }, options)
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
    private readonly events: Pick<EventStore, 'appendPair' | 'appendPairs'>,
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
      if (joined) return appendAlone(this.events)(pair)
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

  private async flush(batch: readonly Waiting[]): Promise<void> {
    if (batch.length === 1) return this.alone(batch)
    const pairs = batch.map(({ pair }) => ({ first: { aggregate: Task, part: pair.task }, second: { aggregate: Schedule, part: pair.schedule }, options: pair.options }))
    try {
      const appended = await this.events.appendPairs(pairs)
      for (const [i, waiting] of batch.entries()) waiting.resolve(appended[i] ?? [[], []])
    } catch (err) {
      if (err instanceof ConcurrencyError) return this.alone(batch)
      for (const waiting of batch) waiting.reject(err)
    }
  }

  private alone(batch: readonly Waiting[]): void {
    const append = appendAlone(this.events)
    for (const { pair, resolve, reject } of batch) append(pair).then(resolve, reject)
  }
}

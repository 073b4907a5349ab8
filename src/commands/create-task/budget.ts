import type { Logger } from 'pino'
import { Account } from '../../domain/accounts/account.js'
import { BudgetExhaustedError, NotFoundError } from '../../domain/errors.js'
import { formatUsd } from '../../domain/money.js'
import type { RecordedEvent } from '../../domain/message.js'
import { billingMonth } from '../../domain/tasks/identity.js'
import { EventStoreUnavailableError, type EventStore } from '../../infra/nats/event-store.js'
import { Grants } from './grants.js'

/** How long a check waits for this process's view of spend to reach the end of the task stream. */
const CATCH_UP_MS = 2000

export interface MonthToDate {
  readonly budgetMicros: number
  readonly spentMicros: number
  readonly reservedMicros: number
}

interface AsOfLog {
  readonly docId: string
  readonly budgetMicros: number
  readonly doc: SpendDoc | null
}

/** An account's spend in one month, as the `account_spend` read model keeps it. */
export interface SpendDoc {
  readonly spentMicros: number
  readonly reservedMicros: number
}

/**
 * The `account_spend` documents kept in this process's memory, as of a sequence of the task
 * stream: the read side's LiveView, built at the composition root (src/app-context.ts).
 */
export interface SpendView {
  get(docId: string, fence: number, timeoutMs: number): Promise<{ doc: SpendDoc | null; caughtUp: boolean }>
  /** The document as the view holds it right now, if it holds it: read in the same turn as the grants. */
  current(docId: string): SpendDoc | null | undefined
  /** Called with every event the view applies, once applied. */
  onApplied(listener: (event: RecordedEvent) => void): void
  stop(): void
}

export interface BudgetDeps {
  readonly view: SpendView
  /** The id of an account's spend document for a billing month. */
  readonly spendId: (accountId: string, month: string) => string
  readonly events: EventStore
  readonly log: Logger
}

/**
 * Month-to-date spend (UTC month) per account, including the reservations of tasks in
 * flight, as of everything the log held when the check began: the `account_spend` projection
 * kept in this process's memory (a LiveView), so that a check never waits for the projector
 * and a task that just finished counts for the very next request. Reservations this
 * process grants are counted at once, before their TaskCreated is even appended, so
 * concurrent requests on one process can never overshoot together (docs/tasks.md).
 */
export class Budgets {
  private readonly view: SpendView
  /** Reservations granted here whose TaskCreated the view has not applied yet. */
  private readonly granted = new Grants()

  constructor(private readonly deps: BudgetDeps) {
    this.view = deps.view
    this.view.onApplied((event) => {
      if (event.type === 'TaskCreated') this.granted.remove(event.aggregateId)
    })
  }

  async monthToDate(accountId: string, now: Date): Promise<MonthToDate> {
    return this.withGrants(this.latest(await this.asOfLog(accountId, now)))
  }

  /** Reserves `micros` for task `taskId`, or throws BudgetExhaustedError (402). */
  /**
   * Reserves `micros` for task `taskId`, or throws BudgetExhaustedError (402). `checkBy`: a
   * time past which the view must not be waited for: when it has not reached the log's head by
   * then (NATS slow or away), the check is refused as NATS out of reach is (503), rather than
   * decided on spend it may not have seen.
   */
  async reserve(accountId: string, taskId: string, now: Date, micros: number, checkBy?: number): Promise<void> {
    this.grant(await this.asOfLog(accountId, now, checkBy), taskId, micros)
  }

  /**
   * Reservations made together (a scheduler's ticks due at one instant, ADR 0051): the first
   * of an account (and month) reads the account and waits for the view to reach the fence; the
   * others reuse that read. The fence is one for them all, every account's: the task stream's
   * head as the first reservation read it (ADR 0056), so that the view is waited for once, not
   * again behind each account's batch appended meanwhile. Each still reserves in its own
   * synchronous turn against the view's document now and every grant of this process, so they
   * never overshoot together; what they may miss is spend appended by other processes after the
   * shared fence.
   */
  together(): Pick<Budgets, 'reserve' | 'release'> {
    const reads = new Map<string, Promise<AsOfLog>>()
    let fence: Promise<number> | null = null
    const sharedFence = () => {
      const read = fence ?? this.deps.events.head('task')
      fence = read
      // A failed read is not kept: the next reservation reads again.
      read.catch(() => {
        if (fence === read) fence = null
      })
      return read
    }
    return {
      reserve: async (accountId, taskId, now, micros, checkBy) => {
        const key = `${accountId}@${billingMonth(now)}`
        const read = reads.get(key) ?? this.asOfLog(accountId, now, checkBy, sharedFence)
        reads.set(key, read)
        read.catch(() => {
          if (reads.get(key) === read) reads.delete(key)
        })
        this.grant(await read, taskId, micros)
      },
      release: (taskId) => this.release(taskId),
    }
  }

  /** One synchronous turn: concurrent reservations in this process see each other's grants. */
  private grant(known: AsOfLog, taskId: string, micros: number): void {
    const { budgetMicros, spentMicros, reservedMicros } = this.withGrants(this.latest(known))
    if (spentMicros + reservedMicros >= budgetMicros) {
      throw new BudgetExhaustedError(`monthly budget exhausted: ${formatUsd(spentMicros + reservedMicros)} of ${formatUsd(budgetMicros)} spent or reserved this month (UTC)`)
    }
    this.granted.add(taskId, known.docId, micros)
  }

  /** The account's budget and its spend document as of the task stream's end when asked (or as of `fenceOf`). */
  private async asOfLog(accountId: string, now: Date, checkBy?: number, fenceOf = () => this.deps.events.head('task')): Promise<AsOfLog> {
    const docId = this.deps.spendId(accountId, billingMonth(now))
    const [account, fence] = await Promise.all([this.deps.events.load(Account, { accountId, aggregateId: accountId }), fenceOf()])
    if (account.state.status !== 'active') throw new NotFoundError('account not found')
    const waitMs = checkBy === undefined ? CATCH_UP_MS : Math.max(0, Math.min(CATCH_UP_MS, checkBy - Date.now()))
    const { doc, caughtUp } = await this.view.get(docId, fence, waitMs)
    if (!caughtUp && checkBy !== undefined) throw new EventStoreUnavailableError(`the spend view did not reach the task stream's sequence ${fence} in time`)
    if (!caughtUp) this.deps.log.warn({ accountId, fence }, 'spend view is behind the log; budget checked against what it has')
    return { docId, budgetMicros: account.state.monthlyBudgetMicros, doc }
  }

  /**
   * The view's document now rather than as `get` answered: between that answer and this turn
   * the view may have applied a TaskCreated of this process, and dropped its grant; the
   * answer would then count that reservation nowhere (one more task admitted than the
   * budget holds, seen under load in budget.test.ts).
   */
  private latest(known: AsOfLog): AsOfLog {
    const doc = this.view.current(known.docId)
    return doc === undefined ? known : { ...known, doc }
  }

  private withGrants({ docId, budgetMicros, doc }: AsOfLog): MonthToDate {
    return { budgetMicros, spentMicros: doc?.spentMicros ?? 0, reservedMicros: (doc?.reservedMicros ?? 0) + this.granted.micros(docId) }
  }

  /** Gives back a reservation whose task was not created after all. */
  release(taskId: string): void {
    this.granted.remove(taskId)
  }

  stop(): void {
    this.view.stop()
  }
}

/** Month-to-date spend of an account as the budget check sees it. */
export function monthToDate(infra: { readonly budgets: Budgets }, accountId: string, now: Date): Promise<MonthToDate> {
  return infra.budgets.monthToDate(accountId, now)
}

import type { AppContext } from '../../src/app-context.js'
import { billingMonth } from '../../src/domain/tasks/identity.js'
import { forEachAtMost } from './at-most.js'

/** Accounts whose spend is read at once. */
const READING_AT_ONCE = 16

/**
 * Brings the accounts' spend documents of this month into the process's spend view before
 * their first tick (ADR 0056): the view loads a document the first time it is asked for it
 * (a read-model read and a read of the log after it), and a scheduler that had just taken a
 * partition paid that on the partition's first tick, for every account at once (p50 0.5 s per
 * account on the loaded machine, bench:schedules). Each account once a month; a failure is
 * only logged (the tick reads it then).
 */
export class SpendWarmth {
  private readonly warmed = new Set<string>()

  constructor(private readonly infra: Pick<AppContext, 'budgets' | 'clock' | 'log'>) {}

  async warm(accountIds: Iterable<string>): Promise<void> {
    const now = this.infra.clock()
    const cold = [...accountIds].filter((accountId) => !this.warmed.has(`${accountId}@${billingMonth(now)}`))
    await forEachAtMost(cold, READING_AT_ONCE, async (accountId) => {
      try {
        await this.infra.budgets.monthToDate(accountId, now)
        this.warmed.add(`${accountId}@${billingMonth(now)}`)
      } catch (err) {
        this.infra.log.debug({ err, accountId }, 'scheduler: could not read the spend of an account before its ticks')
      }
    })
  }
}

import { accountSpendProjection, spendId, type AccountSpendDoc } from '../../../projections/index.js'
import { Account } from '../../domain/accounts/account.js'
import { BudgetExhaustedError, NotFoundError } from '../../domain/errors.js'
import { formatUsd } from '../../domain/money.js'
import { billingMonth } from '../../domain/tasks/identity.js'
import type { Infra } from '../../infra/context.js'

/** How long a request waits for the spend read model to catch up with the log. */
const SPEND_CATCH_UP_MS = 2000

export interface MonthToDate {
  readonly budgetMicros: number
  readonly spentMicros: number
  readonly reservedMicros: number
}

/**
 * Month-to-date spend (UTC month) including the reservations of tasks in flight. It
 * reads the spend read model once that model has applied this account's last task
 * event, so a task that just finished is counted by the very next request, and a busy
 * account never makes another account's requests wait.
 */
export async function monthToDate(infra: Infra, accountId: string, now: Date): Promise<MonthToDate> {
  const account = await infra.events.load(Account, { accountId, aggregateId: accountId })
  if (account.state.status !== 'active') throw new NotFoundError('account not found')
  const last = await infra.events.lastSequence('task', accountId)
  if (last > 0 && !(await infra.progress.waitFor(accountSpendProjection, last, SPEND_CATCH_UP_MS))) {
    infra.log.warn({ accountId, last }, 'spend read model is behind the log; budget checked against what it has')
  }
  const doc = await infra.readModels.collection<AccountSpendDoc>(accountSpendProjection).findOne({ _id: spendId(accountId, billingMonth(now)) })
  return { budgetMicros: account.state.monthlyBudgetMicros, spentMicros: doc?.spentMicros ?? 0, reservedMicros: doc?.reservedMicros ?? 0 }
}

export async function assertWithinBudget(infra: Infra, accountId: string, now: Date): Promise<void> {
  const { budgetMicros, spentMicros, reservedMicros } = await monthToDate(infra, accountId, now)
  if (spentMicros + reservedMicros < budgetMicros) return
  throw new BudgetExhaustedError(
    `monthly budget exhausted: ${formatUsd(spentMicros + reservedMicros)} of ${formatUsd(budgetMicros)} spent or reserved this month (UTC)`,
  )
}

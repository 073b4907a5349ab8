import { accountUsageProjection, lastDayOf, spendId, type AccountSpendDoc, type AccountUsageDoc } from '../../projections/index.js'
import { accountSpendProjection } from '../../projections/index.js'
import { monthToDate, type MonthToDate } from '../commands/create-task/budget.js'
import { Account } from '../domain/accounts/account.js'
import { AGENT_TYPES, type AgentType } from '../domain/agents/catalogue.js'
import { NotFoundError } from '../domain/errors.js'
import { microsToUsd } from '../domain/money.js'
import { billingMonth } from '../domain/tasks/identity.js'
import type { AppContext } from '../app-context.js'
import type { UsageQuery } from '../contract/usage.js'

/**
 * GET /v1/usage: one month's spend against the budget, by agent and by day. This month's
 * totals are the budget check's own (fresh to the log's end, reservations of this process
 * included); other months' come from the `account_spend` read model; the split by agent and
 * day from `account_usage` (as far as the projector has got: a task that just ended may be in
 * the totals a moment before it is in the split). Two reads by `_id`, whatever the history.
 */
export async function usageOf(infra: AppContext, accountId: string, query: UsageQuery) {
  const now = infra.clock()
  const month = query.month ?? billingMonth(now)
  const [totals, split] = await Promise.all([
    month === billingMonth(now) ? monthToDate(infra, accountId, now) : storedMonth(infra, accountId, month),
    infra.readModels.collection<AccountUsageDoc>(accountUsageProjection).findOne({ _id: spendId(accountId, month) }),
  ])
  const { budgetMicros, spentMicros, reservedMicros } = totals
  return {
    usage: {
      month,
      budgetUsd: microsToUsd(budgetMicros),
      spentUsd: microsToUsd(spentMicros),
      reservedUsd: microsToUsd(reservedMicros),
      remainingUsd: microsToUsd(Math.max(0, budgetMicros - spentMicros - reservedMicros)),
      byAgent: AGENT_TYPES.flatMap((agentType: AgentType) => {
        const bucket = split?.byAgent[agentType]
        return bucket ? [{ agentType, spentUsd: microsToUsd(bucket.spentMicros), tasks: bucket.tasks }] : []
      }).sort((a, b) => b.spentUsd - a.spentUsd || a.agentType.localeCompare(b.agentType)),
      byDay: daysOf(month, now).map((date) => {
        const bucket = split?.byDay[date]
        return { date, spentUsd: microsToUsd(bucket?.spentMicros ?? 0), tasks: bucket?.tasks ?? 0 }
      }),
    },
  }
}

/** A month other than this one: its stored spend against the account's budget. */
async function storedMonth(infra: AppContext, accountId: string, month: string): Promise<MonthToDate> {
  infra.link.assertUp()
  const [account, spend] = await Promise.all([
    infra.events.load(Account, { accountId, aggregateId: accountId }),
    infra.readModels.collection<AccountSpendDoc>(accountSpendProjection).findOne({ _id: spendId(accountId, month) }),
  ])
  if (account.state.status !== 'active') throw new NotFoundError('account not found')
  return { budgetMicros: account.state.monthlyBudgetMicros, spentMicros: spend?.spentMicros ?? 0, reservedMicros: spend?.reservedMicros ?? 0 }
}

/** Every day of `month`, up to today when it is this month; none for a month to come. */
function daysOf(month: string, now: Date): string[] {
  const today = now.toISOString().slice(0, 10)
  const last = lastDayOf(month)
  // ISO dates sort as strings: the earlier of the two.
  const until = [last, today].sort()[0] ?? last
  const days: string[] = []
  for (let day = 1; day <= 31; day++) {
    const date = `${month}-${String(day).padStart(2, '0')}`
    if (date > until) break
    days.push(date)
  }
  return days
}

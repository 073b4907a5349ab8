import { accountsProjection, type AccountDoc } from '../../../projections/index.js'
import { changeAccountBudget } from '../../commands/change-account-budget/change-account-budget.js'
import { createAccount } from '../../commands/create-account/create-account.js'
import { monthToDate } from '../../commands/create-task/budget.js'
import { billingMonth } from '../../domain/tasks/identity.js'
import { operator } from '../../commands/execute.js'
import { microsToUsd } from '../../domain/money.js'
import { NotFoundError } from '../../domain/errors.js'
import type { Infra } from '../../infra/context.js'
import { parse, print, required, usd, uuid, UsageError } from '../io.js'

export const ACCOUNTS_USAGE = `mats accounts create --name NAME [--monthly-budget USD] [--json]
mats accounts update ACCOUNT_ID --monthly-budget USD [--json]
mats accounts show ACCOUNT_ID [--json]`

export async function accounts(infra: Infra, [verb, ...rest]: string[]): Promise<void> {
  const { values, positionals } = parse(rest, { name: { type: 'string' }, 'monthly-budget': { type: 'string' } })
  switch (verb) {
    case 'create': {
      const created = await createAccount(infra, { name: required(values.name, '--name'), monthlyBudgetUsd: usd(values['monthly-budget'], '--monthly-budget') }, operator())
      return print(values.json, created)
    }
    case 'update': {
      const monthlyBudgetUsd = usd(required(values['monthly-budget'], '--monthly-budget'), '--monthly-budget') ?? 0
      return print(values.json, await changeAccountBudget(infra, { accountId: uuid(positionals[0], 'ACCOUNT_ID'), monthlyBudgetUsd }, operator()))
    }
    case 'show':
      return print(values.json, await showAccount(infra, uuid(positionals[0], 'ACCOUNT_ID')))
    default:
      throw new UsageError(`unknown command: accounts ${verb ?? ''}`)
  }
}

async function showAccount(infra: Infra, id: string) {
  const doc = await infra.readModels.collection<AccountDoc>(accountsProjection).findOne({ _id: id })
  if (!doc) throw new NotFoundError(`account ${id} not found`)
  const now = infra.clock()
  const spend = await monthToDate(infra, id, now)
  return {
    id: doc._id,
    name: doc.name,
    monthlyBudget: microsToUsd(spend.budgetMicros),
    month: billingMonth(now),
    spent: microsToUsd(spend.spentMicros),
    reservedInFlight: microsToUsd(spend.reservedMicros),
    remaining: microsToUsd(Math.max(0, spend.budgetMicros - spend.spentMicros - spend.reservedMicros)),
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  }
}

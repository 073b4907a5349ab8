import { accountsProjection, type AccountDoc } from '../../../projections/index.js'
import { changeAccountBudget } from '../../commands/change-account-budget/change-account-budget.js'
import { createAccount } from '../../commands/create-account/create-account.js'
import { monthToDate } from '../../commands/create-task/budget.js'
import { billingMonth } from '../../domain/tasks/identity.js'
import { operator } from '../../commands/execute.js'
import { microsToUsd } from '../../domain/money.js'
import { NotFoundError } from '../../domain/errors.js'
import type { AppContext } from '../../app-context.js'
import { parse, print, required, unknownVerb, usd, uuid, type OperatorAction } from '../io.js'

/** Checks the arguments first, so that a usage error needs no servers. */
export function accounts([verb, ...rest]: string[]): OperatorAction {
  const { values, positionals } = parse(rest, { name: { type: 'string' }, 'monthly-budget': { type: 'string' } })
  switch (verb) {
    case 'create': {
      const input = { name: required(values.name, '--name'), monthlyBudgetUsd: usd(values['monthly-budget'], '--monthly-budget') }
      return async (infra) => print(values.json, await createAccount(infra, input, operator()))
    }
    case 'update': {
      const input = { accountId: uuid(positionals[0], 'ACCOUNT_ID'), monthlyBudgetUsd: usd(required(values['monthly-budget'], '--monthly-budget'), '--monthly-budget') ?? 0 }
      return async (infra) => print(values.json, await changeAccountBudget(infra, input, operator()))
    }
    case 'show': {
      const accountId = uuid(positionals[0], 'ACCOUNT_ID')
      return async (infra) => print(values.json, await showAccount(infra, accountId))
    }
    default:
      throw unknownVerb('accounts', verb, ['create', 'update', 'show'])
  }
}

async function showAccount(infra: AppContext, id: string) {
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

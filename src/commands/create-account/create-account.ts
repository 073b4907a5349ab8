import { randomUUID } from 'node:crypto'
import { Account, decideCreateAccount } from '../../domain/accounts/account.js'
import { microsToUsd, usdToMicros } from '../../domain/money.js'
import type { CommandContext } from '../context.js'
import { execute, type Issuer } from '../execute.js'

export interface AccountCreatedView {
  readonly id: string
  readonly name: string
  readonly monthlyBudget: number
  readonly createdAt: string
}

export async function createAccount(infra: CommandContext, input: { readonly name: string; readonly monthlyBudgetUsd?: number | undefined }, issuer: Issuer): Promise<AccountCreatedView> {
  const id = randomUUID()
  const monthlyBudgetUsd = input.monthlyBudgetUsd ?? infra.config.DEFAULT_MONTHLY_BUDGET_USD
  const monthlyBudgetMicros = usdToMicros(monthlyBudgetUsd)
  const { appended } = await execute(infra, Account, { accountId: id, aggregateId: id }, (state) => decideCreateAccount({ name: input.name, monthlyBudgetMicros }, state), issuer, { isNew: true })
  const created = appended[0]
  if (created?.type !== 'AccountCreated') throw new Error('account creation appended no AccountCreated')
  return { id, name: created.data.name, monthlyBudget: microsToUsd(created.data.monthlyBudgetMicros), createdAt: created.occurredAt }
}

import { MICROS_PER_USD } from '../../config.js'
import { Account, decideChangeAccountBudget } from '../../domain/accounts/account.js'
import type { Infra } from '../../infra/context.js'
import { execute, type Issuer } from '../execute.js'

export async function changeAccountBudget(
  infra: Infra,
  input: { readonly accountId: string; readonly monthlyBudgetUsd: number },
  issuer: Issuer,
): Promise<{ readonly id: string; readonly name: string; readonly monthlyBudget: number }> {
  const monthlyBudgetMicros = Math.round(input.monthlyBudgetUsd * MICROS_PER_USD)
  const { state } = await execute(
    infra,
    Account,
    { accountId: input.accountId, aggregateId: input.accountId },
    (current) => decideChangeAccountBudget({ monthlyBudgetMicros }, current),
    issuer,
  )
  if (state.status !== 'active') throw new Error('budget change left no active account')
  return { id: input.accountId, name: state.name, monthlyBudget: state.monthlyBudgetMicros / MICROS_PER_USD }
}

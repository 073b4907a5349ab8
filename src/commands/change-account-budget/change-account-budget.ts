import { Account, decideChangeAccountBudget } from '../../domain/accounts/account.js'
import { microsToUsd, usdToMicros } from '../../domain/money.js'
import type { CommandContext } from '../context.js'
import { execute, type Issuer } from '../execute.js'

export async function changeAccountBudget(
  infra: CommandContext,
  input: { readonly accountId: string; readonly monthlyBudgetUsd: number },
  issuer: Issuer,
): Promise<{ readonly id: string; readonly name: string; readonly monthlyBudget: number }> {
  const monthlyBudgetMicros = usdToMicros(input.monthlyBudgetUsd)
  const { state } = await execute(infra, Account, { accountId: input.accountId, aggregateId: input.accountId }, (current) => decideChangeAccountBudget({ monthlyBudgetMicros }, current), issuer)
  if (state.status !== 'active') throw new Error('budget change left no active account')
  return { id: input.accountId, name: state.name, monthlyBudget: microsToUsd(state.monthlyBudgetMicros) }
}

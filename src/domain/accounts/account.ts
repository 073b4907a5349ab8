import { ConflictError, InvalidInputError, NotFoundError } from '../errors.js'
import type * as schemas from '../events/accounts.js'
import type { EventData } from '../events/common.js'
import type { Aggregate, EventDraft } from '../message.js'

export type AccountCreated = EventDraft<'AccountCreated', EventData<typeof schemas.AccountCreatedData>>
export type AccountBudgetChanged = EventDraft<'AccountBudgetChanged', EventData<typeof schemas.AccountBudgetChangedData>>
export type AccountEvent = AccountCreated | AccountBudgetChanged

export type AccountState = { readonly status: 'absent' } | { readonly status: 'active'; readonly name: string; readonly monthlyBudgetMicros: number }

export const Account: Aggregate<AccountState, AccountEvent> = {
  category: 'account',
  initialState: { status: 'absent' },
  versions: { AccountCreated: 1, AccountBudgetChanged: 1 },
  evolve(state, event) {
    switch (event.type) {
      case 'AccountCreated':
        return { status: 'active', name: event.data.name, monthlyBudgetMicros: event.data.monthlyBudgetMicros }
      case 'AccountBudgetChanged':
        return state.status === 'active' ? { ...state, monthlyBudgetMicros: event.data.monthlyBudgetMicros } : state
    }
  },
}

export interface CreateAccount {
  readonly name: string
  readonly monthlyBudgetMicros: number
}
export interface ChangeAccountBudget {
  readonly monthlyBudgetMicros: number
}

export function decideCreateAccount(command: CreateAccount, state: AccountState): AccountEvent[] {
  if (state.status !== 'absent') throw new ConflictError('account already exists')
  const name = command.name.trim()
  if (name.length < 1 || name.length > 120) throw new InvalidInputError('name: must be 1 to 120 characters')
  assertBudget(command.monthlyBudgetMicros)
  return [{ type: 'AccountCreated', data: { name, monthlyBudgetMicros: command.monthlyBudgetMicros } }]
}

export function decideChangeAccountBudget(command: ChangeAccountBudget, state: AccountState): AccountEvent[] {
  if (state.status === 'absent') throw new NotFoundError('account not found')
  assertBudget(command.monthlyBudgetMicros)
  if (state.monthlyBudgetMicros === command.monthlyBudgetMicros) return []
  return [{ type: 'AccountBudgetChanged', data: { monthlyBudgetMicros: command.monthlyBudgetMicros } }]
}

function assertBudget(micros: number): void {
  if (!Number.isSafeInteger(micros) || micros < 0) throw new InvalidInputError('monthlyBudget: must be a non-negative amount in USD')
}

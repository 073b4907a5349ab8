import t from 'tap'
import { Account, decideChangeAccountBudget, decideCreateAccount, type AccountEvent, type AccountState, type ChangeAccountBudget, type CreateAccount } from '../../src/domain/accounts/account.js'
import { ConflictError, InvalidInputError, NotFoundError } from '../../src/domain/errors.js'

const given = (...events: AccountEvent[]): AccountState => events.reduce(Account.evolve, Account.initialState)
const created = (name = 'Acme', monthlyBudgetMicros = 100_000_000): AccountEvent => ({ type: 'AccountCreated', data: { name, monthlyBudgetMicros } })
const budgetChanged = (monthlyBudgetMicros: number): AccountEvent => ({ type: 'AccountBudgetChanged', data: { monthlyBudgetMicros } })
const whenCreate =
  (state: AccountState, command: Partial<CreateAccount> = {}) =>
  () =>
    decideCreateAccount({ name: 'Acme', monthlyBudgetMicros: 100_000_000, ...command }, state)
const whenChangeBudget = (state: AccountState, command: ChangeAccountBudget) => () => decideChangeAccountBudget(command, state)

t.test('creating an absent account appends AccountCreated with the name trimmed', async (t) => {
  t.same(whenCreate(given(), { name: '  Acme Rockets \n', monthlyBudgetMicros: 12_500_000 })(), [{ type: 'AccountCreated', data: { name: 'Acme Rockets', monthlyBudgetMicros: 12_500_000 } }])
})

t.test('creating an account that already exists is a conflict', async (t) => {
  t.throws(whenCreate(given(created())), ConflictError)
  t.throws(whenCreate(given(created())), { message: /already exists/ })
})

t.test('a name that is empty after trimming or longer than 120 characters is refused, naming name', async (t) => {
  for (const name of ['', '   ', 'n'.repeat(121)]) {
    t.throws(whenCreate(given(), { name }), InvalidInputError, `${JSON.stringify(name.slice(0, 10))} is refused`)
    t.throws(whenCreate(given(), { name }), { message: /^name: / })
  }
})

t.test('a name of exactly 120 characters, or 1, is accepted', async (t) => {
  t.equal(whenCreate(given(), { name: 'n'.repeat(120) })().length, 1)
  t.equal(whenCreate(given(), { name: 'n' })().length, 1)
})

t.test('a negative, fractional or non-finite budget is refused, naming monthlyBudget', async (t) => {
  for (const monthlyBudgetMicros of [-1, 0.5, 1_000_000.25, Number.NaN, Number.POSITIVE_INFINITY, Number.MAX_SAFE_INTEGER + 2]) {
    t.throws(whenCreate(given(), { monthlyBudgetMicros }), InvalidInputError, `${monthlyBudgetMicros} is refused on create`)
    t.throws(whenCreate(given(), { monthlyBudgetMicros }), { message: /^monthlyBudget: / })
    t.throws(whenChangeBudget(given(created()), { monthlyBudgetMicros }), InvalidInputError, `${monthlyBudgetMicros} is refused on change`)
    t.throws(whenChangeBudget(given(created()), { monthlyBudgetMicros }), { message: /^monthlyBudget: / })
  }
})

t.test('a budget of zero is allowed', async (t) => {
  t.same(whenCreate(given(), { monthlyBudgetMicros: 0 })(), [{ type: 'AccountCreated', data: { name: 'Acme', monthlyBudgetMicros: 0 } }])
  t.same(whenChangeBudget(given(created()), { monthlyBudgetMicros: 0 })(), [budgetChanged(0)])
})

t.test('changing the budget of an absent account is not found', async (t) => {
  t.throws(whenChangeBudget(given(), { monthlyBudgetMicros: 1 }), NotFoundError)
  t.throws(whenChangeBudget(given(), { monthlyBudgetMicros: 1 }), { message: /account not found/ })
})

t.test('a budget change to a new amount appends AccountBudgetChanged', async (t) => {
  t.same(whenChangeBudget(given(created('Acme', 5)), { monthlyBudgetMicros: 7 })(), [budgetChanged(7)])
})

t.test('a budget change to the same amount appends nothing', async (t) => {
  t.same(whenChangeBudget(given(created('Acme', 5)), { monthlyBudgetMicros: 5 })(), [])
  t.same(whenChangeBudget(given(created('Acme', 5), budgetChanged(9)), { monthlyBudgetMicros: 9 })(), [])
})

t.test('evolve folds creation and every budget change, the last one winning', async (t) => {
  t.same(given(), { status: 'absent' })
  t.same(given(created('Acme', 5), budgetChanged(9), budgetChanged(3)), { status: 'active', name: 'Acme', monthlyBudgetMicros: 3 })
})

t.test('a budget change before creation leaves the account absent', async (t) => {
  t.same(given(budgetChanged(9)), { status: 'absent' })
})

t.test('evolve does not mutate the state it is given', async (t) => {
  const before = given(created('Acme', 5))
  Account.evolve(before, budgetChanged(9))
  t.same(before, { status: 'active', name: 'Acme', monthlyBudgetMicros: 5 })
})

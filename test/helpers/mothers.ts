import { randomUUID } from 'node:crypto'
import { createAccount, type AccountCreatedView } from '../../src/commands/create-account/create-account.js'
import { createApiKey, type CreatedApiKey } from '../../src/commands/create-api-key/create-api-key.js'
import { operator } from '../../src/commands/execute.js'
import type { Infra } from '../../src/infra/context.js'
import { ApiClient } from './http.js'

/** Object mothers: the fixtures tests need, made through the real commands. */
export function anAccount(infra: Infra, overrides: { name?: string; monthlyBudgetUsd?: number } = {}): Promise<AccountCreatedView> {
  return createAccount(infra, { name: overrides.name ?? `Account ${randomUUID().slice(0, 8)}`, monthlyBudgetUsd: overrides.monthlyBudgetUsd }, operator())
}

export function aKey(infra: Infra, accountId: string, overrides: { name?: string; expiresAt?: Date } = {}): Promise<CreatedApiKey> {
  return createApiKey(infra, { accountId, name: overrides.name ?? 'test key', expiresAt: overrides.expiresAt ?? null }, operator())
}

export interface Caller {
  readonly account: AccountCreatedView
  readonly key: CreatedApiKey
  readonly api: ApiClient
}

/** An account with a key, and a client that sends it. */
export async function aCaller(infra: Infra, baseUrl: string, overrides: { monthlyBudgetUsd?: number } = {}): Promise<Caller> {
  const account = await anAccount(infra, overrides)
  const key = await aKey(infra, account.id)
  return { account, key, api: new ApiClient(baseUrl, key.key) }
}

export const aSessionBody = (overrides: Record<string, unknown> = {}) => ({
  name: 'Spring launch',
  companyName: 'Acme Rockets',
  companyUrl: 'https://acme.example',
  industry: 'Aerospace',
  targetAudience: 'Hobbyist rocketeers in North America',
  ...overrides,
})

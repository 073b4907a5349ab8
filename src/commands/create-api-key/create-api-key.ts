import { randomUUID } from 'node:crypto'
import { Account } from '../../domain/accounts/account.js'
import { ApiKey, decideCreateApiKey } from '../../domain/accounts/api-key.js'
import { generateApiKey } from '../../domain/accounts/api-key-secret.js'
import type { CommandContext } from '../context.js'
import { execute, type Issuer } from '../execute.js'

export interface CreatedApiKey {
  readonly id: string
  readonly accountId: string
  /** Shown once, here; only its hash is stored. */
  readonly key: string
  readonly keyPrefix: string
  readonly name: string
  readonly createdAt: string
  readonly expiresAt: string | null
}

export async function createApiKey(
  infra: CommandContext,
  input: { readonly accountId: string; readonly name: string; readonly expiresAt?: Date | null | undefined },
  issuer: Issuer,
): Promise<CreatedApiKey> {
  const account = await infra.events.load(Account, { accountId: input.accountId, aggregateId: input.accountId })
  const secret = generateApiKey()
  const id = randomUUID()
  const now = infra.clock()
  const command = {
    name: input.name,
    keyHash: secret.keyHash,
    keyPrefix: secret.keyPrefix,
    expiresAt: input.expiresAt ?? null,
    now,
    accountExists: account.state.status === 'active',
  }
  const { appended } = await execute(infra, ApiKey, { accountId: input.accountId, aggregateId: id }, (state) => decideCreateApiKey(command, state), issuer, { isNew: true })
  const created = appended[0]
  if (created?.type !== 'ApiKeyCreated') throw new Error('key creation appended no ApiKeyCreated')
  const { name, keyPrefix, expiresAt } = created.data
  return { id, accountId: input.accountId, key: secret.key, keyPrefix, name, createdAt: created.occurredAt, expiresAt }
}

import { ApiKey, decideRevokeApiKey } from '../../domain/accounts/api-key.js'
import type { CommandContext } from '../context.js'
import { execute, type Issuer } from '../execute.js'

/** Operators know a key by its id alone, so the owning account is found from the log. */
export async function revokeApiKey(
  infra: CommandContext,
  input: { readonly keyId: string; readonly reason?: string | null | undefined },
  issuer: Issuer,
): Promise<{ readonly id: string; readonly accountId: string; readonly revoked: boolean }> {
  const { appended, accountId } = await execute(infra, ApiKey, { accountId: '*', aggregateId: input.keyId }, (state) => decideRevokeApiKey({ reason: input.reason ?? null }, state), issuer)
  return { id: input.keyId, accountId, revoked: appended.length > 0 }
}

import { ConflictError, InvalidInputError, NotFoundError } from '../errors.js'
import type * as schemas from '../events/accounts.js'
import type { EventData } from '../events/common.js'
import type { Aggregate, EventDraft } from '../message.js'

/** The key itself never appears in an event: only its SHA-256 and a short display prefix. */
export type ApiKeyCreated = EventDraft<'ApiKeyCreated', EventData<typeof schemas.ApiKeyCreatedData>>
export type ApiKeyRevoked = EventDraft<'ApiKeyRevoked', EventData<typeof schemas.ApiKeyRevokedData>>
export type ApiKeyEvent = ApiKeyCreated | ApiKeyRevoked

export type ApiKeyState = { readonly status: 'absent' } | { readonly status: 'active' | 'revoked'; readonly name: string; readonly expiresAt: string | null }

export const ApiKey: Aggregate<ApiKeyState, ApiKeyEvent> = {
  category: 'apikey',
  initialState: { status: 'absent' },
  versions: { ApiKeyCreated: 1, ApiKeyRevoked: 1 },
  evolve(state, event) {
    switch (event.type) {
      case 'ApiKeyCreated':
        return { status: 'active', name: event.data.name, expiresAt: event.data.expiresAt }
      case 'ApiKeyRevoked':
        return state.status === 'absent' ? state : { ...state, status: 'revoked' }
    }
  },
}

export interface CreateApiKey {
  readonly name: string
  readonly keyHash: string
  readonly keyPrefix: string
  readonly expiresAt: Date | null
  readonly now: Date
  readonly accountExists: boolean
}

export function decideCreateApiKey(command: CreateApiKey, state: ApiKeyState): ApiKeyEvent[] {
  if (!command.accountExists) throw new NotFoundError('account not found')
  if (state.status !== 'absent') throw new ConflictError('api key already exists')
  const name = command.name.trim()
  if (name.length < 1 || name.length > 120) throw new InvalidInputError('name: must be 1 to 120 characters')
  if (command.expiresAt && command.expiresAt.getTime() <= command.now.getTime()) {
    throw new InvalidInputError('expiresAt: must be in the future')
  }
  const expiresAt = command.expiresAt?.toISOString() ?? null
  return [{ type: 'ApiKeyCreated', data: { name, keyHash: command.keyHash, keyPrefix: command.keyPrefix, expiresAt } }]
}

export function decideRevokeApiKey(command: { readonly reason: string | null }, state: ApiKeyState): ApiKeyEvent[] {
  if (state.status === 'absent') throw new NotFoundError('api key not found')
  if (state.status === 'revoked') return []
  return [{ type: 'ApiKeyRevoked', data: { reason: command.reason } }]
}

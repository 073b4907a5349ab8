import { apiKeysProjection, type ApiKeyDoc } from '../../../projections/index.js'
import { createApiKey } from '../../commands/create-api-key/create-api-key.js'
import { operator } from '../../commands/execute.js'
import { revokeApiKey } from '../../commands/revoke-api-key/revoke-api-key.js'
import type { AppContext } from '../../app-context.js'
import { isoDate, parse, print, required, unknownVerb, uuid, type OperatorAction } from '../io.js'

/** Checks the arguments first, so that a usage error needs no servers. */
export function keys([verb, ...rest]: string[]): OperatorAction {
  const { values, positionals } = parse(rest, { account: { type: 'string' }, name: { type: 'string' }, 'expires-at': { type: 'string' }, reason: { type: 'string' } })
  switch (verb) {
    case 'create': {
      const input = { accountId: uuid(values.account, '--account'), name: required(values.name, '--name'), expiresAt: isoDate(values['expires-at'], '--expires-at') ?? null }
      return async (infra) => {
        const created = await createApiKey(infra, input, operator())
        if (!values.json) process.stderr.write('Store this key now: it is shown only once.\n')
        print(values.json, created)
      }
    }
    case 'revoke': {
      const input = { keyId: uuid(positionals[0], 'KEY_ID'), reason: values.reason ?? null }
      return async (infra) => print(values.json, await revokeApiKey(infra, input, operator()))
    }
    case 'list': {
      const accountId = uuid(values.account, '--account')
      return async (infra) => {
        const rows = await listKeys(infra, accountId)
        print(values.json, values.json ? { keys: rows } : rows)
      }
    }
    default:
      throw unknownVerb('keys', verb, ['create', 'revoke', 'list'])
  }
}

async function listKeys(infra: AppContext, accountId: string) {
  const docs = await infra.readModels.collection<ApiKeyDoc>(apiKeysProjection).find({ accountId }).sort({ createdAt: -1 }).toArray()
  return docs.map(({ _id, name, keyPrefix, createdAt, expiresAt, revokedAt }) => ({ id: _id, name, keyPrefix, createdAt, expiresAt, revokedAt }))
}

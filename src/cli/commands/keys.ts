import { apiKeysProjection, type ApiKeyDoc } from '../../../projections/index.js'
import { createApiKey } from '../../commands/create-api-key/create-api-key.js'
import { operator } from '../../commands/execute.js'
import { revokeApiKey } from '../../commands/revoke-api-key/revoke-api-key.js'
import type { Infra } from '../../infra/context.js'
import { isoDate, parse, print, required, uuid, UsageError } from '../io.js'

export const KEYS_USAGE = `mats keys create --account ACCOUNT_ID --name NAME [--expires-at ISO] [--json]
mats keys revoke KEY_ID [--reason TEXT] [--json]
mats keys list --account ACCOUNT_ID [--json]`

export async function keys(infra: Infra, [verb, ...rest]: string[]): Promise<void> {
  const { values, positionals } = parse(rest, { account: { type: 'string' }, name: { type: 'string' }, 'expires-at': { type: 'string' }, reason: { type: 'string' } })
  switch (verb) {
    case 'create': {
      const input = { accountId: uuid(values.account, '--account'), name: required(values.name, '--name'), expiresAt: isoDate(values['expires-at'], '--expires-at') ?? null }
      const created = await createApiKey(infra, input, operator())
      if (!values.json) process.stderr.write('Store this key now: it is shown only once.\n')
      return print(values.json, created)
    }
    case 'revoke':
      return print(values.json, await revokeApiKey(infra, { keyId: uuid(positionals[0], 'KEY_ID'), reason: values.reason ?? null }, operator()))
    case 'list': {
      const accountId = uuid(values.account, '--account')
      const docs = await infra.readModels.collection<ApiKeyDoc>(apiKeysProjection).find({ accountId }).sort({ createdAt: -1 }).toArray()
      const rows = docs.map(({ _id, name, keyPrefix, createdAt, expiresAt, revokedAt }) => ({ id: _id, name, keyPrefix, createdAt, expiresAt, revokedAt }))
      return print(values.json, values.json ? { keys: rows } : rows)
    }
    default:
      throw new UsageError(`unknown command: keys ${verb ?? ''}`)
  }
}

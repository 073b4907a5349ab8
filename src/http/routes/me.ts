import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { UnauthorizedError } from '../../domain/errors.js'
import { principalOf } from '../plugins/auth.js'
import { answer, errors } from '../../contract/common.js'
import { MeResponse } from '../../contract/me.js'

const me: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/me',
    {
      config: { rateLimitGroup: 'meta' },
      schema: {
        summary: 'Describe the API key used for this request',
        operationId: 'getMe',
        description: 'The API key that authenticated this request: its id, prefix, name, account, creation, expiry and last use. Never the key itself.',
        tags: ['keys'],
        response: { 200: answer(MeResponse, 'The key'), ...errors(401, 429) },
      },
    },
    async (request) => {
      const info = await app.authenticator.keyInfo(principalOf(request).keyId)
      if (!info) throw new UnauthorizedError('invalid API key')
      const { _id, name, keyPrefix, createdAt, expiresAt, lastUsedAt } = info
      return { key: { id: _id, name, keyPrefix, createdAt, expiresAt, lastUsedAt: lastUsedAt?.toISOString() ?? null } }
    },
  )
}

export default me

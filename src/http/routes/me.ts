import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { UnauthorizedError } from '../../domain/errors.js'
import { principalOf } from '../plugins/auth.js'
import { errors } from '../../contract/common.js'
import { MeResponse } from '../../contract/me.js'

const me: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/me',
    {
      onRequest: [app.authenticate, app.rateLimit('meta')],
      schema: {
        summary: 'Describe the API key used for this request',
        operationId: 'getMe',
        tags: ['keys'],
        response: { 200: MeResponse, ...errors(401, 429) },
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

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { createWebhook, listDeliveries, listWebhooks, removeWebhook, rotateSecret } from '../../api/webhooks.js'
import { SecretBox } from '../../infra/crypto/secret-box.js'
import { principalOf } from '../plugins/auth.js'
import { errors } from '../../contract/common.js'
import { errorBody, errorSchema } from '../../contract/errors.js'
import { CreatedWebhookResponse, CreateWebhookBody, ListDeliveriesResponse, ListWebhooksResponse, RotatedSecretResponse, WebhookParams } from '../../contract/webhooks.js'

const DISABLED = 'webhooks are not enabled on this server: its operator has not set WEBHOOKS_SECRET_KEY'

/** Signed webhooks (Standard Webhooks): registration here, delivery by the `webhooks` role (docs/webhooks.md). */
const webhooks: FastifyPluginAsyncTypebox = async (app) => {
  const box = SecretBox.fromConfig(app.infra.config)
  const guard = { onRequest: [app.authenticate, app.rateLimit('webhooks')] }
  const tags = ['webhooks']

  app.post(
    '/webhooks',
    {
      ...guard,
      schema: {
        summary: 'Register a webhook: task events are POSTed to its URL, signed with the secret returned once here',
        operationId: 'createWebhook',
        tags,
        body: CreateWebhookBody,
        response: {
          201: CreatedWebhookResponse,
          ...errors(400, 401, 409, 429),
          503: errorSchema(503, 'NATS or MongoDB is out of reach, or webhooks are not enabled on this server', { codes: ['unavailable', 'webhooks_disabled'], title: 'WebhooksUnavailableError' }),
        },
      },
    },
    async (request, reply) => {
      if (!box) return reply.code(503).send(errorBody('webhooks_disabled', DISABLED))
      const { accountId, keyId } = principalOf(request)
      return reply.code(201).send(await createWebhook(app.infra, box, accountId, request.body, { correlationId: request.id, keyId }))
    },
  )

  app.get(
    '/webhooks',
    {
      ...guard,
      schema: { summary: "List the caller's webhooks, newest first", operationId: 'listWebhooks', tags, response: { 200: ListWebhooksResponse, ...errors(401, 429) } },
    },
    async (request) => listWebhooks(app.infra, principalOf(request).accountId),
  )

  app.delete(
    '/webhooks/:webhookId',
    {
      ...guard,
      schema: {
        summary: 'Delete a webhook: no delivery is attempted after this, retries included',
        operationId: 'deleteWebhook',
        tags,
        params: WebhookParams,
        response: { 204: Type.Null({ description: 'Deleted' }), ...errors(400, 401, 404, 429) },
      },
    },
    async (request, reply) => {
      const { accountId, keyId } = principalOf(request)
      await removeWebhook(app.infra, accountId, request.params.webhookId, { correlationId: request.id, keyId })
      return reply.code(204).send(null)
    },
  )

  app.post(
    '/webhooks/:webhookId/rotate-secret',
    {
      ...guard,
      schema: {
        summary: 'Give a webhook a new signing secret, returned once here; for 24 h deliveries are signed with the old one as well',
        operationId: 'rotateWebhookSecret',
        tags,
        params: WebhookParams,
        response: {
          200: RotatedSecretResponse,
          ...errors(400, 401, 404, 429),
          503: errorSchema(503, 'NATS or MongoDB is out of reach, or webhooks are not enabled on this server', { codes: ['unavailable', 'webhooks_disabled'], title: 'WebhooksUnavailableError' }),
        },
      },
    },
    async (request, reply) => {
      if (!box) return reply.code(503).send(errorBody('webhooks_disabled', DISABLED))
      const { accountId, keyId } = principalOf(request)
      return rotateSecret(app.infra, box, accountId, request.params.webhookId, { correlationId: request.id, keyId })
    },
  )

  app.get(
    '/webhooks/:webhookId/deliveries',
    {
      ...guard,
      schema: {
        summary: "A webhook's last delivery attempts, newest first",
        operationId: 'listWebhookDeliveries',
        tags,
        params: WebhookParams,
        response: { 200: ListDeliveriesResponse, ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => listDeliveries(app.infra, principalOf(request).accountId, request.params.webhookId),
  )
}

export default webhooks

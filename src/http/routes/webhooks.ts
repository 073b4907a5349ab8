import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { createWebhook, listDeliveries, listWebhooks, removeWebhook, rotateSecret } from '../../api/webhooks.js'
import { SecretBox } from '../../infra/crypto/secret-box.js'
import { issuerOf, principalOf } from '../plugins/auth.js'
import { answer, errors } from '../../contract/common.js'
import { errorBody, errorSchema } from '../../contract/errors.js'
import { CreatedWebhookResponse, CreateWebhookBody, ListDeliveriesResponse, ListWebhooksResponse, RotatedSecretResponse, WebhookParams } from '../../contract/webhooks.js'

const DISABLED = 'webhooks are not enabled on this server: its operator has not set WEBHOOKS_SECRET_KEY'

/** Signed webhooks (Standard Webhooks): registration here, delivery by the `webhooks` role (docs/webhooks.md). */
const webhooks: FastifyPluginAsyncTypebox = async (app) => {
  const box = SecretBox.fromConfig(app.infra.config)
  const config = { rateLimitGroup: 'webhooks' } as const
  const tags = ['webhooks']

  app.post(
    '/webhooks',
    {
      config,
      schema: {
        summary: 'Register a webhook: task events are POSTed to its URL, signed with the secret returned once here',
        operationId: 'createWebhook',
        description:
          "Registers an HTTPS URL (or HTTP to a public address) to receive the account's task events as signed POSTs (Standard Webhooks), at least once, in order per task, retried for 24 h. The signing secret is answered once, here.",
        tags,
        body: CreateWebhookBody,
        response: {
          201: answer(CreatedWebhookResponse, 'The webhook and its signing secret (whsec_…), shown only now'),
          ...errors(400, 401, 409, 429),
          503: errorSchema(503, 'NATS or MongoDB is out of reach, or webhooks are not enabled on this server', { codes: ['unavailable', 'webhooks_disabled'], title: 'WebhooksUnavailableError' }),
        },
      },
    },
    async (request, reply) => {
      if (!box) return reply.code(503).send(errorBody('webhooks_disabled', DISABLED))
      const { accountId } = principalOf(request)
      return reply.code(201).send(await createWebhook(app.infra, box, accountId, request.body, issuerOf(request, reply)))
    },
  )

  app.get(
    '/webhooks',
    {
      config,
      schema: {
        summary: "List the caller's webhooks, newest first",
        operationId: 'listWebhooks',
        description: "The caller's webhooks, newest first, without their secrets.",
        tags,
        response: { 200: answer(ListWebhooksResponse, 'The webhooks'), ...errors(401, 429) },
      },
    },
    async (request) => listWebhooks(app.infra, principalOf(request).accountId),
  )

  app.delete(
    '/webhooks/:webhookId',
    {
      config,
      schema: {
        summary: 'Delete a webhook: no delivery is attempted after this, retries included',
        operationId: 'deleteWebhook',
        description: 'Deletes a webhook: no delivery is attempted after this, retries included.',
        tags,
        params: WebhookParams,
        response: { 204: Type.Null({ description: 'Deleted' }), ...errors(400, 401, 404, 429) },
      },
    },
    async (request, reply) => {
      const { accountId } = principalOf(request)
      await removeWebhook(app.infra, accountId, request.params.webhookId, issuerOf(request, reply))
      return reply.code(204).send(null)
    },
  )

  app.post(
    '/webhooks/:webhookId/rotate-secret',
    {
      config,
      schema: {
        summary: 'Give a webhook a new signing secret, returned once here; for 24 h deliveries are signed with the old one as well',
        operationId: 'rotateWebhookSecret',
        description:
          "Gives the webhook a new signing secret, answered once, here. For the next 24 h every delivery carries two signatures in webhook-signature, one per secret, so a receiver holding either verifies it; then only the new one. Rotating again within the 24 h ends the older secret at once. 404 for an unknown or another account's webhook.",
        tags,
        params: WebhookParams,
        response: {
          200: answer(RotatedSecretResponse, 'The webhook, its new signing secret (whsec_…), shown only now, and until when the old one still signs'),
          ...errors(400, 401, 404, 429),
          503: errorSchema(503, 'NATS or MongoDB is out of reach, or webhooks are not enabled on this server', { codes: ['unavailable', 'webhooks_disabled'], title: 'WebhooksUnavailableError' }),
        },
      },
    },
    async (request, reply) => {
      if (!box) return reply.code(503).send(errorBody('webhooks_disabled', DISABLED))
      const { accountId } = principalOf(request)
      return rotateSecret(app.infra, box, accountId, request.params.webhookId, issuerOf(request, reply))
    },
  )

  app.get(
    '/webhooks/:webhookId/deliveries',
    {
      config,
      schema: {
        summary: "A webhook's last delivery attempts, newest first",
        operationId: 'listWebhookDeliveries',
        description: "A webhook's latest delivery attempts, newest first: the event, the task, the attempt number, the receiver's status code or the error, and whether it will be retried.",
        tags,
        params: WebhookParams,
        response: { 200: answer(ListDeliveriesResponse, 'The latest delivery attempts'), ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => listDeliveries(app.infra, principalOf(request).accountId, request.params.webhookId),
  )
}

export default webhooks

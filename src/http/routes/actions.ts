import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { decideActionOf, listPendingApprovals, listTaskActions } from '../../api/actions.js'
import type { Decision } from '../../domain/actions/action.js'
import { principalOf } from '../plugins/auth.js'
import { ActionParams, ActionResponse, DecisionBody, PendingApprovalsQuery, PendingApprovalsResponse, TaskActionsResponse } from '../../contract/actions.js'
import { errors } from '../../contract/common.js'
import { TaskParams } from '../../contract/tasks.js'

/**
 * Proposed write actions and their approval. Reads spend `tasks.read`; a decision spends
 * `tasks.create`, the group of the writes that commit the account to something (a decision
 * may change a live platform), at a rate far above what people deciding by hand need.
 */
const actions: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/tasks/:taskId/actions',
    {
      onRequest: [app.authenticate, app.rateLimit('tasks.read')],
      schema: {
        summary: "A task's proposed write actions, in the order its run proposed them, with what became of each",
        operationId: 'listTaskActions',
        tags: ['approvals'],
        params: TaskParams,
        response: { 200: TaskActionsResponse, ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => listTaskActions(app.infra, principalOf(request).accountId, request.params.taskId),
  )

  app.get(
    '/approvals',
    {
      onRequest: [app.authenticate, app.rateLimit('tasks.read')],
      schema: {
        summary: "The account's actions awaiting approval, newest first",
        operationId: 'listPendingApprovals',
        tags: ['approvals'],
        querystring: PendingApprovalsQuery,
        response: { 200: PendingApprovalsResponse, ...errors(400, 401, 429) },
      },
    },
    async (request) => listPendingApprovals(app.infra, principalOf(request).accountId, request.query),
  )

  for (const decision of ['approve', 'reject'] as const satisfies readonly Decision[]) {
    app.post(
      `/actions/:actionId/${decision}`,
      {
        onRequest: [app.authenticate, app.rateLimit('tasks.create')],
        // The body is optional: a POST without one decides without a reason.
        preValidation: async (request) => {
          request.body ??= {}
        },
        schema: {
          summary:
            decision === 'approve'
              ? 'Approve an action awaiting approval: a configured connector carries it out, otherwise it stays approved for your own integration'
              : 'Reject an action awaiting approval: nothing is changed',
          operationId: `${decision}Action`,
          tags: ['approvals'],
          params: ActionParams,
          body: DecisionBody,
          response: { 200: ActionResponse, ...errors(400, 401, 404, 409, 429) },
        },
      },
      async (request) => {
        const { accountId, keyId } = principalOf(request)
        return decideActionOf(app.infra, accountId, request.params.actionId, decision, request.body.reason, { correlationId: request.id, keyId })
      },
    )
  }
}

export default actions

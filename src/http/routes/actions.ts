import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { decideActionOf, listPendingApprovals, listTaskActions } from '../../api/actions.js'
import type { Decision } from '../../domain/actions/action.js'
import { issuerOf, principalOf } from '../plugins/auth.js'
import { ActionParams, ActionResponse, DecisionBody, PendingApprovalsQuery, PendingApprovalsResponse, TaskActionsResponse } from '../../contract/actions.js'
import { answer, errors } from '../../contract/common.js'
import { TaskParams } from '../../contract/tasks.js'

/**
 * Proposed write actions and their approval. Reads spend `tasks.read`; a decision spends
 * `tasks.create`, the group of the writes that commit the account to something (a decision
 * may change a live platform), at a rate far above what people deciding by hand need.
 */
const DECISION_DOCS: Record<Decision, { summary: string; description: string }> = {
  approve: {
    summary: 'Approve an action awaiting approval: a configured connector carries it out, otherwise it stays approved for your own integration',
    description:
      'Approves an action awaiting approval. A connector configured for its platform carries it out (executed or execution_failed follow); otherwise it stays approved for your own integration to carry out. Any other status is a 409.',
  },
  reject: {
    summary: 'Reject an action awaiting approval: nothing is changed',
    description: 'Rejects an action awaiting approval, with an optional reason: nothing is changed on the platform. Any other status is a 409.',
  },
}

const actions: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/tasks/:taskId/actions',
    {
      config: { rateLimitGroup: 'tasks.read' },
      schema: {
        summary: "A task's proposed write actions, in the order its run proposed them, with what became of each",
        operationId: 'listTaskActions',
        description:
          "The write actions a task's run proposed (a post to publish, a budget to change), in order, each with its status: draft, pending_approval, approved, rejected, executed, execution_failed or not_executed.",
        tags: ['approvals'],
        params: TaskParams,
        response: { 200: answer(TaskActionsResponse, "The task's proposed actions"), ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => listTaskActions(app.infra, principalOf(request).accountId, request.params.taskId),
  )

  app.get(
    '/approvals',
    {
      config: { rateLimitGroup: 'tasks.read' },
      schema: {
        summary: "The account's actions awaiting approval, newest first",
        operationId: 'listPendingApprovals',
        description: "The account's actions awaiting a human decision, newest first, a page at a time.",
        tags: ['approvals'],
        querystring: PendingApprovalsQuery,
        response: { 200: answer(PendingApprovalsResponse, 'A page of actions awaiting approval'), ...errors(400, 401, 429) },
      },
    },
    async (request) => listPendingApprovals(app.infra, principalOf(request).accountId, request.query),
  )

  for (const decision of ['approve', 'reject'] as const satisfies readonly Decision[]) {
    app.post(
      `/actions/:actionId/${decision}`,
      {
        config: { rateLimitGroup: 'tasks.create' },
        // The body is optional: a POST without one decides without a reason.
        preValidation: async (request) => {
          request.body ??= {}
        },
        schema: {
          ...DECISION_DOCS[decision],
          operationId: `${decision}Action`,
          tags: ['approvals'],
          params: ActionParams,
          body: DecisionBody,
          response: { 200: answer(ActionResponse, `The action, ${decision === 'approve' ? 'approved' : 'rejected'}`), ...errors(400, 401, 404, 409, 429) },
        },
      },
      async (request, reply) => {
        const { accountId } = principalOf(request)
        return decideActionOf(app.infra, accountId, request.params.actionId, decision, request.body.reason, issuerOf(request, reply))
      },
    )
  }
}

export default actions

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { usageOf } from '../../api/usage.js'
import { principalOf } from '../plugins/auth.js'
import { answer, errors } from '../../contract/common.js'
import { UsageQuery, UsageResponse } from '../../contract/usage.js'

const usage: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/usage',
    {
      config: { rateLimitGroup: 'meta' },
      schema: {
        summary: "One month's spend against the account's budget, by agent and by day",
        operationId: 'getUsage',
        description:
          "What the account's tasks billed to one UTC month (this one by default, or `month=YYYY-MM`) cost against its monthly budget: spent (tasks that ended), reserved (tasks still pending or running) and what remains before POST /v1/tasks answers 402, split by agent and by day for a chart. A task is billed to the month it was created in and counts when it ends, on the day it ended. This month's totals are those the budget check uses; the split follows the projector and may trail them by a moment. Past months are shown against the current budget.",
        tags: ['meta'],
        querystring: UsageQuery,
        response: { 200: answer(UsageResponse, "The month's spend"), ...errors(400, 401, 429) },
      },
    },
    async (request) => usageOf(app.infra, principalOf(request).accountId, request.query),
  )
}

export default usage

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { AGENTS } from '../../domain/agents/catalogue.js'
import { ListAgentsResponse } from '../../contract/agents.js'
import { errors } from '../../contract/common.js'

const agents: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/agents',
    {
      onRequest: [app.authenticate, app.rateLimit('meta')],
      schema: {
        summary: 'List the ten agents with their specialties',
        operationId: 'listAgents',
        tags: ['agents'],
        response: { 200: ListAgentsResponse, ...errors(401, 429) },
      },
    },
    async () => ({ agents: AGENTS }),
  )
}

export default agents

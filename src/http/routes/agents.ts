import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { AGENTS } from '../../domain/agents/catalogue.js'
import { ListAgentsResponse } from '../../contract/agents.js'
import { answer, errors } from '../../contract/common.js'

const agents: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/agents',
    {
      config: { rateLimitGroup: 'meta' },
      schema: {
        summary: 'List the ten agents with their specialties',
        operationId: 'listAgents',
        description:
          'The ten agents a task can be given to, with their names, descriptions and subspecialties. growth-marketer is the supervisor: it can delegate parts of a brief to the nine specialists.',
        tags: ['agents'],
        response: { 200: answer(ListAgentsResponse, 'The ten agents, supervisor first'), ...errors(401, 429) },
      },
    },
    async () => ({ agents: AGENTS }),
  )
}

export default agents

import { Type } from 'typebox'
import { AGENT_TYPES } from '../domain/agents/catalogue.js'

export const AgentType = Type.Enum([...AGENT_TYPES], { description: 'One of the ten agent types' })

export const Agent = Type.Object(
  {
    type: AgentType,
    name: Type.String(),
    description: Type.String(),
    isSupervisor: Type.Boolean({ description: 'True only for growth-marketer, which can delegate to all specialists' }),
    subspecialties: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), description: Type.String() })),
  },
  { title: 'Agent' },
)

export const ListAgentsResponse = Type.Object({ agents: Type.Array(Agent) }, { title: 'ListAgentsResponse' })

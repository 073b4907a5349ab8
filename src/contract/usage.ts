import { Type, type Static } from 'typebox'
import { AgentType } from './agents.js'
import { MONTH } from './common.js'

const Usd = (description: string) => Type.Number({ minimum: 0, description: `${description}; USD, exact to the micro-dollar` })

export const UsageQuery = Type.Object(
  {
    month: Type.Optional(Type.String({ pattern: MONTH, description: 'A UTC month, `YYYY-MM`; this month when left out', examples: ['2026-11'] })),
  },
  { additionalProperties: false },
)
export type UsageQuery = Static<typeof UsageQuery>

const SpendBucket = {
  spentUsd: Usd('What the tasks that ended in it cost'),
  tasks: Type.Integer({ minimum: 0, description: 'How many tasks ended in it' }),
}

export const Usage = Type.Object(
  {
    month: Type.String({ description: 'The UTC month, `YYYY-MM`; a task is billed to the month it was created in' }),
    budgetUsd: Usd("The account's monthly budget (its current one, also for past months)"),
    spentUsd: Usd('What the tasks billed to the month that have ended cost'),
    reservedUsd: Usd('Held for tasks of the month still pending or running (TASK_RESERVATION_USD each); released when they end'),
    remainingUsd: Usd('budget - spent - reserved, never below 0; at 0, POST /v1/tasks answers 402'),
    byAgent: Type.Array(Type.Object({ agentType: AgentType, ...SpendBucket }, { additionalProperties: false }), {
      description: 'Spend of ended tasks by agent, highest first; agents without an ended task are left out',
    }),
    byDay: Type.Array(Type.Object({ date: Type.String({ format: 'date', description: 'A UTC day, `YYYY-MM-DD`' }), ...SpendBucket }, { additionalProperties: false }), {
      description: 'Spend of ended tasks by the UTC day they ended, every day of the month up to today (0 on quiet days), oldest first',
    }),
  },
  { title: 'Usage', additionalProperties: false },
)

export const UsageResponse = Type.Object({ usage: Usage }, { title: 'UsageResponse' })

import { Type, type Static } from 'typebox'
import { PRIORITIES, TASK_STATUSES, TASK_TYPES } from '../domain/tasks/task.js'
import { Usage } from '../domain/events/tasks.js'
import { AgentType } from './agents.js'
import { DateTime, NOT_BLANK, Nullable, PageQuery, Pagination, Uuid } from './common.js'

export const TaskStatus = Type.Enum([...TASK_STATUSES])

export const Task = Type.Object(
  {
    id: Uuid,
    sessionId: Uuid,
    agentType: AgentType,
    taskType: Type.Enum([...TASK_TYPES], { description: 'instruction: created from a brief; delegated: a part of a brief the supervisor gave a specialist' }),
    status: TaskStatus,
    priority: Type.Optional(Type.Enum([...PRIORITIES], { description: 'As given at creation' })),
    title: Type.Optional(Nullable(Type.String({ description: 'As given at creation' }))),
    parentTaskId: Type.Optional(Nullable(Type.String({ format: 'uuid', description: 'For a delegated task: the supervisor task it is part of' }))),
    rerunOf: Type.Optional(Nullable(Type.String({ format: 'uuid', description: 'For a re-run (POST /v1/tasks/{taskId}/rerun): the task it repeats; else null' }))),
    reruns: Type.Optional(Type.Array(Type.String({ format: 'uuid' }), { description: 'The re-runs of this task, oldest first; [] if none' })),
    scheduleId: Type.Optional(Nullable(Type.String({ format: 'uuid', description: "For a schedule's task: the schedule whose tick created it; else null" }))),
    scheduledFor: Type.Optional(Nullable(Type.String({ format: 'date-time', description: "For a schedule's task: the tick it was created for; else null" }))),
    instruction: Type.Optional(Nullable(Type.String({ description: 'The brief the task was created with' }))),
    result: Type.Optional(Nullable(Type.String({ description: "The agent's output (Markdown); null until status is completed" }))),
    error: Type.Optional(Nullable(Type.String())),
    createdAt: Type.Optional(Nullable(DateTime)),
    startedAt: Type.Optional(Nullable(DateTime)),
    completedAt: Type.Optional(Nullable(DateTime)),
    usage: Type.Optional(Type.Union([Usage, Type.Null()], { description: 'The provider, model and tokens of the run, once it ended; null before, and when no model answered' })),
    costUsd: Type.Optional(Type.Number({ minimum: 0, description: 'What the run cost, once it ended (0 before); USD, exact to the micro-dollar' })),
  },
  { title: 'Task' },
)

export const CreateTaskBody = Type.Object(
  {
    sessionId: Uuid,
    agentType: Type.Optional(Type.Enum(AgentType.enum, { default: 'growth-marketer', description: 'growth-marketer is the supervisor and delegates to specialists' })),
    instruction: Type.String({ minLength: 4, maxLength: 4000, pattern: NOT_BLANK, description: 'Plain English; not blank' }),
    title: Type.Optional(Type.String({ maxLength: 200 })),
    priority: Type.Optional(Type.Enum([...PRIORITIES], { default: 'normal', description: 'Waiting high tasks start before normal ones, normal before low' })),
    waitSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 120, default: 0, description: 'Hold the response until the task ends or this many seconds pass' })),
  },
  { title: 'CreateTaskBody', additionalProperties: false },
)
export type CreateTaskBody = Static<typeof CreateTaskBody>

export const ListTasksQuery = Type.Object(
  {
    sessionId: Type.Optional(Type.String({ format: 'uuid', description: 'Only the tasks of this session' })),
    scheduleId: Type.Optional(Type.String({ format: 'uuid', description: 'Only the tasks this schedule created' })),
    status: Type.Optional(Type.Enum([...TASK_STATUSES], { description: 'Only the tasks in this status' })),
    agentType: Type.Optional(Type.Enum(AgentType.enum, { description: 'Only the tasks of this agent' })),
    priority: Type.Optional(Type.Enum([...PRIORITIES], { description: 'Only the tasks of this priority' })),
    createdFrom: Type.Optional(Type.String({ format: 'date-time', description: 'Only the tasks created at or after this instant' })),
    createdTo: Type.Optional(Type.String({ format: 'date-time', description: 'Only the tasks created before this instant' })),
    ...PageQuery,
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 400,
        pattern: '^[A-Za-z0-9_-]+$',
        description:
          'The page after the one that gave this `pagination.nextCursor` (send the same filters and limit; not with `page`). It costs the same at any depth and is not shifted by tasks created meanwhile; `page` numbers skip what the pages before hold.',
      }),
    ),
  },
  { additionalProperties: false },
)
export type ListTasksQuery = Static<typeof ListTasksQuery>

export const TaskCounts = Type.Object(
  {
    pending: Type.Integer({ minimum: 0 }),
    running: Type.Integer({ minimum: 0 }),
    completed: Type.Integer({ minimum: 0 }),
    failed: Type.Integer({ minimum: 0 }),
    total: Type.Integer({ minimum: 0, description: 'All of them' }),
  },
  { title: 'TaskCounts', additionalProperties: false },
)
export const TaskCountsResponse = Type.Object({ counts: TaskCounts }, { title: 'TaskCountsResponse' })

export const TaskParams = Type.Object({ taskId: Type.String({ format: 'uuid', description: 'The task, as POST /v1/tasks answered it' }) }, { additionalProperties: false })

export const TaskResponse = Type.Object({ task: Task }, { title: 'TaskResponse' })
/** How far GET /v1/tasks counts the matches of a filter that no stored count answers (ADR 0043). */
export const TASK_TOTAL_BOUND = 1000

// No toLocaleString in a description: formatting for a locale loads ICU's tables into every
// process at start, 7 to 8 MiB of idle RSS (bench:footprint, 2026-11-27).
export const TaskPagination = Type.Object(
  {
    ...Pagination.properties,
    total: Type.Integer({
      minimum: 0,
      description: `How many tasks match: exact when \`totalExact\`, else at least this many (${TASK_TOTAL_BOUND}; a filter with no stored count is counted that far and no further)`,
    }),
    totalExact: Type.Boolean({ description: 'False when `total` is a lower bound' }),
    nextCursor: Nullable(Type.String({ description: 'Send as `cursor` for the next page; null on the last page' })),
  },
  { title: 'TaskPagination' },
)

export const ListTasksResponse = Type.Object({ tasks: Type.Array(Task), pagination: TaskPagination }, { title: 'ListTasksResponse' })

import { Type, type Static } from 'typebox'
import { OVERLAP_POLICIES, SKIP_REASONS } from '../domain/schedules/schedule.js'
import { PRIORITIES } from '../domain/tasks/task.js'
import { AgentType } from './agents.js'
import { DateTime, DURATION, NOT_BLANK, Nullable, PageQuery, Pagination, Uuid } from './common.js'

const Cron = Type.String({
  minLength: 9,
  maxLength: 200,
  description: 'A cron expression of 5 fields (minute hour day month weekday) or 6 (seconds first), read in `timezone`. Exactly one of cron and every.',
})
const Every = Type.String({ pattern: DURATION, description: 'An interval of at least 1s: 90s, 15m, 1h, 1d. Ticks fall on multiples of it since 1970-01-01T00:00Z. Exactly one of cron and every.' })
const Timezone = Type.String({ minLength: 1, maxLength: 64, description: 'An IANA time zone name the cron expression is read in, e.g. Europe/Berlin', default: 'UTC' })
const Overlap = Type.Enum([...OVERLAP_POLICIES], {
  description: "skip (the default): a tick creates no task while the schedule's previous one is pending or running, and is recorded as skipped; allow: every tick creates a task",
})
const CatchupWindow = Type.String({
  pattern: DURATION,
  description: 'How late a tick may still fire after a time when no scheduler ran (default 1m); older ticks are recorded as skipped (outside_catchup_window)',
})
const Instruction = Type.String({ minLength: 4, maxLength: 4000, pattern: NOT_BLANK, description: 'The brief of each task the schedule creates' })

const Firing = Type.Union(
  [
    Type.Object({ scheduledFor: DateTime, taskId: Uuid }, { description: 'The tick created this task' }),
    Type.Object(
      {
        scheduledFor: DateTime,
        skipped: Type.Enum([...SKIP_REASONS]),
        missedTicks: Type.Optional(Type.Integer({ minimum: 1, description: 'For outside_catchup_window: how many ticks were missed' })),
      },
      { description: 'The tick was skipped, with why' },
    ),
  ],
  { title: 'ScheduleFiring' },
)

export const Schedule = Type.Object(
  {
    id: Uuid,
    sessionId: Uuid,
    agentType: AgentType,
    instruction: Type.String(),
    title: Nullable(Type.String()),
    priority: Type.Enum([...PRIORITIES]),
    cron: Nullable(Type.String()),
    every: Nullable(Type.String()),
    timezone: Type.String(),
    overlap: Overlap,
    catchupWindow: Type.String(),
    paused: Type.Boolean(),
    createdAt: DateTime,
    nextRuns: Type.Array(DateTime, { description: 'The next five fire times; [] while paused' }),
    recentFirings: Type.Array(Firing, { description: 'The latest ticks, newest first (up to 20): each with its task, or skipped with why' }),
  },
  { title: 'Schedule' },
)

const Fields = {
  agentType: Type.Optional(Type.Enum(AgentType.enum, { default: 'growth-marketer' })),
  instruction: Instruction,
  title: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  priority: Type.Optional(Type.Enum([...PRIORITIES], { default: 'normal' })),
  cron: Type.Optional(Cron),
  every: Type.Optional(Every),
  timezone: Type.Optional(Timezone),
  overlap: Type.Optional(Overlap),
  catchupWindow: Type.Optional(CatchupWindow),
  paused: Type.Optional(Type.Boolean({ description: 'A paused schedule fires nothing; resuming does not catch up the ticks missed meanwhile' })),
}

export const CreateScheduleBody = Type.Object({ sessionId: Uuid, ...Fields }, { title: 'CreateScheduleBody', additionalProperties: false })
export type CreateScheduleBody = Static<typeof CreateScheduleBody>

export const UpdateScheduleBody = Type.Object(
  { ...Fields, instruction: Type.Optional(Instruction) },
  { title: 'UpdateScheduleBody', additionalProperties: false, minProperties: 1, description: 'Any fields; cron replaces every and the reverse' },
)
export type UpdateScheduleBody = Static<typeof UpdateScheduleBody>

export const ScheduleParams = Type.Object({ scheduleId: Type.String({ format: 'uuid', description: 'The schedule, as POST /v1/schedules answered it' }) }, { additionalProperties: false })
export const ListSchedulesQuery = Type.Object(
  { sessionId: Type.Optional(Type.String({ format: 'uuid', description: 'Only the schedules of this session' })), ...PageQuery },
  { additionalProperties: false },
)
export type ListSchedulesQuery = Static<typeof ListSchedulesQuery>

export const ScheduleResponse = Type.Object({ schedule: Schedule }, { title: 'ScheduleResponse' })
export const ListSchedulesResponse = Type.Object({ schedules: Type.Array(Schedule), pagination: Pagination }, { title: 'ListSchedulesResponse' })

/** MCP pause_schedule: PATCH /v1/schedules/{id} with `{ paused }` only. */
export const PauseScheduleInput = Type.Object(
  {
    scheduleId: ScheduleParams.properties.scheduleId,
    paused: Type.Optional(Type.Boolean({ default: true, description: 'true (the default) pauses the schedule; false resumes it, from now' })),
  },
  { additionalProperties: false },
)
export const DeletedScheduleResponse = Type.Object({ deleted: Type.Literal(true), scheduleId: Uuid }, { title: 'DeletedScheduleResponse' })

import { createScheduleFor, listSchedulesPage, removeSchedule, updateSchedule } from '../api/schedules.js'
import { CreateScheduleBody, DeletedScheduleResponse, ListSchedulesQuery, ListSchedulesResponse, PauseScheduleInput, ScheduleParams, ScheduleResponse } from '../contract/schedules.js'
import { defineTool, issuerOf } from './tool.js'

interface ScheduleLike {
  readonly id: string
  readonly cron: string | null
  readonly every: string | null
  readonly timezone: string
  readonly paused: boolean
  readonly nextRuns: readonly string[]
  readonly instruction: string
}

function scheduleText(schedule: ScheduleLike): string {
  const when = schedule.cron ? `cron "${schedule.cron}" in ${schedule.timezone}` : `every ${schedule.every}`
  const next = schedule.paused ? 'paused' : `next: ${schedule.nextRuns.slice(0, 3).join(', ')}`
  return `Schedule ${schedule.id}, ${when} (${next}): ${schedule.instruction}`
}

/** POST /v1/schedules as a tool. */
export const createScheduleTool = defineTool({
  name: 'create_schedule',
  title: 'Create schedule',
  description:
    'Create a task with this brief on a recurring schedule: exactly one of cron (5 or 6 fields, read in timezone, an IANA name, default UTC) ' +
    'or every ("90s", "15m", "1h", "1d"; at least 1s). overlap skip (the default) creates no task while the previous one is pending or running. ' +
    'Each tick creates exactly one task (scheduleId and scheduledFor set; list_tasks with scheduleId finds them) or is recorded as skipped with why. ' +
    'Errors: session not found, a bad field (named), the account has as many schedules as it may. Returns { schedule } with its next five runs.',
  limitGroup: 'tasks.create',
  input: CreateScheduleBody,
  output: ScheduleResponse,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(ctx, args) {
    const created = await createScheduleFor(ctx.infra, ctx.principal.accountId, args, issuerOf(ctx))
    return { structured: created, text: scheduleText(created.schedule) }
  },
})

/** GET /v1/schedules as a tool. */
export const listSchedulesTool = defineTool({
  name: 'list_schedules',
  title: 'List schedules',
  description:
    "List the account's schedules, newest first (paused ones too), optionally of one session; paginated (page, limit). Each has its next runs and its latest ticks (recentFirings: the task created, or skipped with why).",
  limitGroup: 'tasks.read',
  input: ListSchedulesQuery,
  output: ListSchedulesResponse,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(ctx, args) {
    const page = await listSchedulesPage(ctx.infra, ctx.principal.accountId, args)
    const lines = page.schedules.map(scheduleText)
    return { structured: page, text: lines.length > 0 ? lines.join('\n') : 'No schedules.' }
  },
})

/** PATCH /v1/schedules/{id} with { paused } as a tool. */
export const pauseScheduleTool = defineTool({
  name: 'pause_schedule',
  title: 'Pause or resume schedule',
  description:
    'Pause a schedule (paused true, the default): it fires nothing until resumed. paused false resumes it from now; ticks missed while paused are not caught up. Errors: schedule not found. Returns { schedule }.',
  limitGroup: 'tasks.create',
  input: PauseScheduleInput,
  output: ScheduleResponse,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(ctx, { scheduleId, paused }) {
    const changed = await updateSchedule(ctx.infra, ctx.principal.accountId, scheduleId, { paused: paused ?? true }, issuerOf(ctx))
    return { structured: changed, text: scheduleText(changed.schedule) }
  },
})

/** DELETE /v1/schedules/{id} as a tool. */
export const deleteScheduleTool = defineTool({
  name: 'delete_schedule',
  title: 'Delete schedule',
  description: 'Delete a schedule: no tick fires after this; the tasks it created stay. Errors: schedule not found (also for one already deleted). Returns { deleted: true, scheduleId }.',
  limitGroup: 'tasks.create',
  input: ScheduleParams,
  output: DeletedScheduleResponse,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  async run(ctx, { scheduleId }) {
    await removeSchedule(ctx.infra, ctx.principal.accountId, scheduleId, issuerOf(ctx))
    return { structured: { deleted: true, scheduleId }, text: `Schedule ${scheduleId} deleted.` }
  },
})

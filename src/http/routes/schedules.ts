import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { createScheduleFor, getSchedule, listSchedulesPage, removeSchedule, updateSchedule } from '../../api/schedules.js'
import { answer, errors } from '../../contract/common.js'
import { CreateScheduleBody, ListSchedulesQuery, ListSchedulesResponse, ScheduleParams, ScheduleResponse, UpdateScheduleBody } from '../../contract/schedules.js'
import { issuerOf, principalOf } from '../plugins/auth.js'

/** Recurring tasks (docs/schedules.md, ADR 0039): the schedules are kept here, their ticks fired by the `scheduler` role. */
const schedules: FastifyPluginAsyncTypebox = async (app) => {
  const write = { rateLimitGroup: 'tasks.create' } as const
  const read = { rateLimitGroup: 'tasks.read' } as const
  const tags = ['schedules']

  app.post(
    '/schedules',
    {
      config: write,
      schema: {
        summary: 'Create a schedule: a task with this brief at each tick of a cron expression or interval',
        operationId: 'createSchedule',
        description:
          "Creates a task with the given brief at each tick: of `cron` (5 or 6 fields, read in `timezone`, so 09:00 Europe/Berlin stays 09:00 there across DST) or of `every` (at least 1s). Each tick creates exactly one task (scheduleId and scheduledFor set), or is recorded as skipped with why: overlap (overlap skip, the previous task still pending or running), budget_exhausted, rate_limited, session_missing, outside_catchup_window. Ticks do not spend the account's HTTP rate limits. An account has at most SCHEDULES_PER_ACCOUNT schedules (500 by default, paused ones count): 409 schedule_limit_reached past it. 404 for a session not the caller's.",
        tags,
        body: CreateScheduleBody,
        response: { 201: answer(ScheduleResponse, 'The schedule, with its next five fire times'), ...errors(400, 401, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      const { accountId } = principalOf(request)
      const created = await createScheduleFor(app.infra, accountId, request.body, issuerOf(request, reply))
      return reply.code(201).header('location', `/v1/schedules/${created.schedule.id}`).send(created)
    },
  )

  app.get(
    '/schedules',
    {
      config: read,
      schema: {
        summary: "List the caller's schedules, newest first",
        operationId: 'listSchedules',
        description: "The caller's schedules (paused ones too, deleted ones not), newest first, optionally of one session; paginated like tasks.",
        tags,
        querystring: ListSchedulesQuery,
        response: { 200: answer(ListSchedulesResponse, 'One page of schedules'), ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => listSchedulesPage(app.infra, principalOf(request).accountId, request.query),
  )

  app.get(
    '/schedules/:scheduleId',
    {
      config: read,
      schema: {
        summary: 'A schedule, its next fire times and its latest ticks',
        operationId: 'getSchedule',
        description:
          "A schedule with its next five fire times and its latest ticks (recentFirings, newest first): each with the task it created, or skipped with why. Another account's schedule is not found.",
        tags,
        params: ScheduleParams,
        response: { 200: answer(ScheduleResponse, 'The schedule'), ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => getSchedule(app.infra, principalOf(request).accountId, request.params.scheduleId),
  )

  app.patch(
    '/schedules/:scheduleId',
    {
      config: write,
      schema: {
        summary: 'Change a schedule, pause it ({ paused: true }) or resume it',
        operationId: 'updateSchedule',
        description:
          "Changes any of a schedule's fields. `cron` replaces `every` and the reverse. A change of cron, every or timezone, and a resumption, start the schedule afresh from now: ticks missed before are not caught up. Another account's schedule is not found.",
        tags,
        params: ScheduleParams,
        body: UpdateScheduleBody,
        response: { 200: answer(ScheduleResponse, 'The schedule as it now stands'), ...errors(400, 401, 404, 429) },
      },
    },
    async (request, reply) => {
      const { accountId } = principalOf(request)
      return updateSchedule(app.infra, accountId, request.params.scheduleId, request.body, issuerOf(request, reply))
    },
  )

  app.delete(
    '/schedules/:scheduleId',
    {
      config: write,
      schema: {
        summary: 'Delete a schedule: no tick fires after this',
        operationId: 'deleteSchedule',
        description: "Deletes a schedule: no tick fires after this; the tasks it created stay. Another account's schedule is not found.",
        tags,
        params: ScheduleParams,
        response: { 204: Type.Null({ description: 'Deleted' }), ...errors(400, 401, 404, 429) },
      },
    },
    async (request, reply) => {
      const { accountId } = principalOf(request)
      await removeSchedule(app.infra, accountId, request.params.scheduleId, issuerOf(request, reply))
      return reply.code(204).send(null)
    },
  )
}

export default schedules

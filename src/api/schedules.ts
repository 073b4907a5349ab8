import { randomUUID } from 'node:crypto'
import { countLiveSchedules, listSchedules, ownedSchedule, scheduleDocFromHistory, type ScheduleDoc } from '../../projections/index.js'
import type { AppContext } from '../app-context.js'
import type { Issuer } from '../commands/execute.js'
import { nextFireTimes } from '../commands/schedules/fire-times.js'
import { changeSchedule, createSchedule, deleteSchedule, type ManageSchedulesContext } from '../commands/schedules/manage.js'
import { pageOf, paginationFor } from '../contract/common.js'
import type { CreateScheduleBody, ListSchedulesQuery, UpdateScheduleBody } from '../contract/schedules.js'
import { NotFoundError } from '../domain/errors.js'
import type { Recorded } from '../domain/message.js'
import type { ScheduleEvent } from '../domain/schedules/schedule.js'
import { requireSession } from '../queries/require-session.js'
import { documentOf } from './views.js'

/** The schedule operations of the v1 API (docs/schedules.md): each takes the validated request and returns the response body. */
const manageContext = (infra: AppContext): ManageSchedulesContext => ({ ...infra, countLiveSchedules: (accountId) => countLiveSchedules(infra.readModels, accountId) })

export async function createScheduleFor(infra: AppContext, accountId: string, body: CreateScheduleBody, issuer: Issuer) {
  const { history } = await createSchedule(manageContext(infra), accountId, randomUUID(), { ...body, agentType: body.agentType ?? 'growth-marketer' }, issuer)
  return { schedule: scheduleView(fromHistory(history), infra.clock()) }
}

export async function listSchedulesPage(infra: AppContext, accountId: string, query: ListSchedulesQuery) {
  if (query.sessionId) await requireSession(infra, accountId, query.sessionId)
  const { page, limit } = pageOf(query)
  const { items, total } = await listSchedules(infra.readModels, accountId, { sessionId: query.sessionId }, page, limit)
  const now = infra.clock()
  return { schedules: items.map((doc) => scheduleView(doc, now)), pagination: paginationFor(page, limit, total) }
}

export async function getSchedule(infra: AppContext, accountId: string, scheduleId: string) {
  const doc = await ownedSchedule(infra.readModels, accountId, scheduleId)
  if (!doc) throw new NotFoundError('schedule not found')
  return { schedule: scheduleView(doc, infra.clock()) }
}

export async function updateSchedule(infra: AppContext, accountId: string, scheduleId: string, body: UpdateScheduleBody, issuer: Issuer) {
  const { history } = await changeSchedule(manageContext(infra), { accountId, scheduleId }, body, issuer)
  return { schedule: scheduleView(fromHistory(history), infra.clock()) }
}

export async function removeSchedule(infra: AppContext, accountId: string, scheduleId: string, issuer: Issuer): Promise<void> {
  await deleteSchedule(manageContext(infra), { accountId, scheduleId }, issuer)
}

const fromHistory = (history: readonly Recorded<ScheduleEvent>[]): ScheduleDoc => documentOf(scheduleDocFromHistory(history), 'schedule')

const NEXT_RUNS = 5

export function scheduleView(doc: ScheduleDoc, now: Date) {
  const { _id, sessionId, agentType, instruction, title, priority, cron, every, timezone, overlap, catchupWindow, createdAt, recentFirings } = doc
  const from = Math.max(now.getTime(), Date.parse(doc.activeFrom), doc.lastTick ? Date.parse(doc.lastTick) : 0)
  const nextRuns = doc.status === 'active' ? nextFireTimes({ cron, every, timezone }, new Date(from), NEXT_RUNS).map((at) => at.toISOString()) : []
  return {
    id: _id,
    sessionId,
    agentType,
    instruction,
    title,
    priority,
    cron,
    every,
    timezone,
    overlap,
    catchupWindow,
    paused: doc.status === 'paused',
    createdAt,
    nextRuns,
    recentFirings: recentFirings.map((firing) => ({ ...firing })),
  }
}

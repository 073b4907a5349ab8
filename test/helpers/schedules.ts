import type { AppContext } from '../../src/app-context.js'
import type { RecordedEvent } from '../../src/domain/message.js'
import { aggregateSubjects } from '../../src/infra/nats/subjects.js'
import type { Caller } from './mothers.js'

export interface ScheduleView {
  id: string
  paused: boolean
  nextRuns: string[]
  recentFirings: ({ scheduledFor: string; taskId: string } | { scheduledFor: string; skipped: string; missedTicks?: number })[]
  [field: string]: unknown
}
export type ScheduleAnswer = { schedule: ScheduleView; error?: string; code?: string }

export const createSchedule = (caller: Caller, body: Record<string, unknown>) => caller.api.post<ScheduleAnswer>('/v1/schedules', body)
export const patchSchedule = (caller: Caller, id: string, body: Record<string, unknown>) => caller.api.request<ScheduleAnswer>('PATCH', `/v1/schedules/${id}`, body)

/** A schedule's events, read from the log (not the read model). */
export async function scheduleEvents(infra: AppContext, accountId: string, scheduleId: string): Promise<readonly RecordedEvent[]> {
  const subjects = aggregateSubjects('schedule', accountId, scheduleId)
  const loaded = await infra.events.readAccountAfter('schedule', accountId, 0)
  return loaded.filter((event) => event.aggregateId === scheduleId && event.subject.startsWith(subjects.slice(0, -1)))
}

export const firedOf = (events: readonly RecordedEvent[]) => events.filter((event) => event.type === 'ScheduleFired')
export const skippedOf = (events: readonly RecordedEvent[], reason?: string) =>
  events.filter((event) => event.type === 'ScheduleTickSkipped' && (reason === undefined || (event.data as { reason?: string }).reason === reason))

import type { Filter } from 'mongodb'
import type { Stored } from '../engine/projection.js'
import type { ReadModels } from '../engine/read-models.js'
import { schedulesProjection, type ScheduleDoc } from '../read-models/schedules.js'
import { newestFirst, type Page } from './owned.js'

const collection = (readModels: ReadModels) => readModels.collection<ScheduleDoc>(schedulesProjection)

/** An account's schedules that are not deleted, newest first, optionally of one session. */
export function listSchedules(readModels: ReadModels, accountId: string, filter: { sessionId?: string | undefined }, page: number, limit: number): Promise<Page<ScheduleDoc>> {
  const query: Filter<Stored<ScheduleDoc>> = { accountId, status: { $ne: 'deleted' }, ...(filter.sessionId ? { sessionId: filter.sessionId } : {}) }
  return newestFirst(collection(readModels), query, page, limit)
}

/** The account's schedule, or null: another account's is not found. */
export function ownedSchedule(readModels: ReadModels, accountId: string, scheduleId: string): Promise<Stored<ScheduleDoc> | null> {
  return collection(readModels).findOne({ _id: scheduleId, accountId, status: { $ne: 'deleted' } })
}

/** Schedules that count against SCHEDULES_PER_ACCOUNT: active and paused. */
export function countLiveSchedules(readModels: ReadModels, accountId: string): Promise<number> {
  return collection(readModels).countDocuments({ accountId, status: { $ne: 'deleted' } })
}

/** One page of the active schedules of every account, in id order, after `afterId`: what a scheduler fires. */
export function activeSchedulesAfter(readModels: ReadModels, afterId: string, limit: number): Promise<Stored<ScheduleDoc>[]> {
  return collection(readModels)
    .find({ status: 'active', _id: { $gt: afterId } })
    .sort({ _id: 1 })
    .limit(limit)
    .toArray()
}

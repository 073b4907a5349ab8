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

/**
 * The active schedules of every account, `batchSize` documents a round trip: what a scheduler
 * fires. One query, in no order: FerretDB pushes neither sort nor limit down, so pages by id
 * scanned and sorted the whole collection once a page (10 scans at 10,000 schedules, 12 to 24 s
 * of a takeover, ADR 0061).
 */
export function activeSchedules(readModels: ReadModels, batchSize: number): AsyncIterable<Stored<ScheduleDoc>> {
  return collection(readModels).find({ status: 'active' }).batchSize(batchSize)
}

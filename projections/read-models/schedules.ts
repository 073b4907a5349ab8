import type { Recorded } from '../../src/domain/message.js'
import type { OverlapPolicy, ScheduleEvent, ScheduleState, SkipReason } from '../../src/domain/schedules/schedule.js'
import type { AgentType } from '../../src/domain/agents/catalogue.js'
import type { Priority } from '../../src/domain/tasks/task.js'
import { defineProjection, foldHistory } from '../engine/projection.js'

/** How many of a schedule's latest ticks its document keeps, newest first. */
export const RECENT_FIRINGS = 20

export type Firing = { readonly scheduledFor: string; readonly taskId: string } | { readonly scheduledFor: string; readonly skipped: SkipReason; readonly missedTicks?: number }

export interface ScheduleDoc {
  readonly _id: string
  readonly accountId: string
  readonly sessionId: string
  readonly agentType: AgentType
  readonly instruction: string
  readonly title: string | null
  readonly priority: Priority
  readonly cron: string | null
  readonly every: string | null
  readonly timezone: string
  readonly overlap: OverlapPolicy
  readonly catchupWindow: string
  readonly status: 'active' | 'paused' | 'deleted'
  /** Ticks at or before it are not due; after the last tick decided, the next fire times count from the later of the two. */
  readonly activeFrom: string
  readonly lastTick: string | null
  /**
   * The task of the latest fired tick (what overlap `skip` waits for), so that a scheduler
   * can take the schedule over from this document (ADR 0061). Absent from documents written
   * before it was kept: those are loaded from the log.
   */
  readonly lastTaskId?: string | null
  readonly recentFirings: readonly Firing[]
  readonly createdAt: string
}

const withFiring = (doc: ScheduleDoc, firing: Firing): ScheduleDoc => ({ ...doc, lastTick: firing.scheduledFor, recentFirings: [firing, ...doc.recentFirings].slice(0, RECENT_FIRINGS) })

export const schedulesProjection = defineProjection<ScheduleDoc, Recorded<ScheduleEvent>>({
  name: 'schedules',
  stream: 'MATS_TASKS',
  canHandle: ['ScheduleCreated', 'ScheduleChanged', 'SchedulePaused', 'ScheduleResumed', 'ScheduleDeleted', 'ScheduleFired', 'ScheduleTickSkipped'],
  indexes: [
    { key: { accountId: 1, createdAt: -1, _id: -1 }, name: 'by_account_newest' },
    { key: { accountId: 1, sessionId: 1, createdAt: -1, _id: -1 }, name: 'by_session_newest' },
    // The schedulers read the active ones of every account.
    { key: { status: 1, _id: 1 }, name: 'by_status' },
  ],
  // Its owner reads a schedule back right after changing it; a tick updates it once.
  inline: true,
  startedBy: ['ScheduleCreated'],
  docId: (event) => event.aggregateId,
  evolve(doc, event) {
    if (event.type === 'ScheduleCreated') {
      const { paused, ...spec } = event.data
      return { _id: event.aggregateId, accountId: event.accountId, ...spec, status: paused ? 'paused' : 'active', lastTick: null, lastTaskId: null, recentFirings: [], createdAt: event.occurredAt }
    }
    if (!doc) throw new Error(`${event.type} before ScheduleCreated for ${event.aggregateId}`)
    switch (event.type) {
      case 'ScheduleChanged':
        return { ...doc, ...event.data }
      case 'SchedulePaused':
        return { ...doc, status: 'paused' }
      case 'ScheduleResumed':
        return { ...doc, status: 'active', activeFrom: event.data.activeFrom }
      case 'ScheduleDeleted':
        return { ...doc, status: 'deleted' }
      case 'ScheduleFired':
        return { ...withFiring(doc, { scheduledFor: event.data.scheduledFor, taskId: event.data.taskId }), lastTaskId: event.data.taskId }
      case 'ScheduleTickSkipped': {
        const missed = event.data.missedTicks ? { missedTicks: event.data.missedTicks } : {}
        return withFiring(doc, { scheduledFor: event.data.scheduledFor, skipped: event.data.reason, ...missed })
      }
    }
  },
})

/**
 * The schedule's aggregate state as its document shows it, or null when the document does not
 * keep all of it (written before `lastTaskId` was kept, or a tick since by a projector that
 * did not keep it: a rolling deploy). As current as the document: a
 * scheduler guards its appends by the document's `_seq`, so a document behind the log costs
 * one refused append, never a second tick (ADR 0061).
 */
export function scheduleStateOf(doc: ScheduleDoc): ScheduleState | null {
  const lastFired = doc.recentFirings.find((firing) => 'taskId' in firing)
  if (doc.lastTaskId === undefined || (lastFired && lastFired.taskId !== doc.lastTaskId)) return null
  const { sessionId, agentType, instruction, title, priority, cron, every, timezone, overlap, catchupWindow } = doc
  const spec = { sessionId, agentType, instruction, title, priority, cron, every, timezone, overlap, catchupWindow }
  return { status: doc.status, spec, activeFrom: doc.activeFrom, lastTick: doc.lastTick, lastTaskId: doc.lastTaskId }
}

export const scheduleDocFromHistory = (events: readonly Recorded<ScheduleEvent>[]): ScheduleDoc | null => foldHistory<ScheduleDoc>(schedulesProjection, events)

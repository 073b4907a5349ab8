import { Kvm } from '@nats-io/kv'
import { partitionOf } from '../../projections/index.js'
import { SCHEDULER_LEASES } from './leases.js'
import type { AppContext } from '../../src/app-context.js'
import type { MatsMetrics } from '../../src/infra/metrics/mats-metrics.js'
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

/** The ticks of a schedule whose attempts the guard refused, from the schedulers' logs (one line each, LOG_LEVEL info). */
export function refusedTicks(logs: string, scheduleId: string): string[] {
  const ticks: string[] = []
  for (const line of logs.split('\n')) {
    if (!line.includes('tick attempt refused by the guard')) continue
    const entry = JSON.parse(line) as { scheduleId?: string; scheduledFor?: string }
    if (entry.scheduleId === scheduleId && entry.scheduledFor) ticks.push(entry.scheduledFor)
  }
  return ticks
}

/** The process id of the scheduler holding the lease on the partition of an account's schedules, or null. */
export async function leaseHolderPid(infra: AppContext, accountId: string): Promise<number | null> {
  const kv = await new Kvm(infra.js).open(SCHEDULER_LEASES)
  const scope = infra.readModels.db.databaseName.replace(/[^A-Za-z0-9_-]/g, '_')
  const entry = await kv.get(`${scope}.schedules.${partitionOf(accountId)}`)
  // The member id is `host:pid:random`.
  const pid = entry?.operation === 'PUT' ? Number(entry.string().split(':')[1]) : Number.NaN
  return Number.isInteger(pid) ? pid : null
}

/** A scheduler process's attempts to store a tick (mats_schedule_tick_attempts_total), by outcome. */
export async function tickAttempts(metrics: MatsMetrics): Promise<{ stored: number; refused: number }> {
  const text = await metrics.text()
  const count = (outcome: string) => {
    const line = text.split('\n').find((l) => l.startsWith('mats_schedule_tick_attempts_total{') && l.includes(`outcome="${outcome}"`))
    return line ? Number(line.split(' ').at(-1)) : 0
  }
  return { stored: count('stored'), refused: count('refused') }
}

/**
 * The ticks between a schedule's first and last decision that no decision accounts for: a
 * tick is accounted for when fired or skipped, and a skip of `missedTicks` (past the catch-up
 * window) accounts for that many ticks ending at its own.
 */
export function uncoveredTicks(decisions: readonly RecordedEvent[], stepMs: number): string[] {
  const covered = new Set<number>()
  for (const event of decisions) {
    const data = event.data as { scheduledFor: string; missedTicks?: number }
    const at = Date.parse(data.scheduledFor)
    for (let k = 0; k < (data.missedTicks ?? 1); k++) covered.add(at - k * stepMs)
  }
  const times = [...covered].sort((a, b) => a - b)
  const [first = 0, last = 0] = [times[0], times.at(-1)]
  const missing: string[] = []
  for (let at = first; at <= last; at += stepMs) if (!covered.has(at)) missing.push(new Date(at).toISOString())
  return missing
}

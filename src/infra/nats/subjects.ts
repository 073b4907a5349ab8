import type { AggregateCategory } from '../../domain/message.js'

/**
 * Subject scheme: `mats.<category>.<accountId>.<aggregateId>.<EventType>`.
 * A subscriber picks exactly what it needs with wildcards, e.g. every event of an
 * account (`mats.*.<accountId>.>`), one task (`mats.task.*.<taskId>.*`) or every
 * completion (`mats.task.*.*.TaskCompleted`). See docs/events.md.
 */
export const SUBJECT_ROOT = 'mats'

export const STREAMS = {
  MATS_ACCOUNTS: { subjects: [`${SUBJECT_ROOT}.account.>`, `${SUBJECT_ROOT}.apikey.>`], categories: ['account', 'apikey'] },
  MATS_SESSIONS: { subjects: [`${SUBJECT_ROOT}.session.>`], categories: ['session'] },
  // Decisions on actions share the task stream: one projection reads a proposal and its decision in log order.
  // So do the re-runs of a task: stored in one atomic batch with the re-run's TaskCreated (ADR 0038).
  // So do schedules: a tick's ScheduleFired is stored in one atomic batch with its task's TaskCreated (ADR 0039).
  MATS_TASKS: {
    subjects: [`${SUBJECT_ROOT}.task.>`, `${SUBJECT_ROOT}.action.>`, `${SUBJECT_ROOT}.reruns.>`, `${SUBJECT_ROOT}.schedule.>`],
    categories: ['task', 'action', 'reruns', 'schedule'],
  },
  MATS_WEBHOOKS: { subjects: [`${SUBJECT_ROOT}.webhook.>`], categories: ['webhook'] },
} as const satisfies Record<string, { subjects: readonly string[]; categories: readonly AggregateCategory[] }>

export type StreamName = keyof typeof STREAMS

export const STREAM_NAMES = Object.keys(STREAMS) as StreamName[]

export function streamOf(category: AggregateCategory): StreamName {
  const found = STREAM_NAMES.find((name) => (STREAMS[name].categories as readonly string[]).includes(category))
  if (!found) throw new Error(`no stream holds category ${category}`)
  return found
}

export function eventSubject(category: AggregateCategory, accountId: string, aggregateId: string, type: string): string {
  return `${SUBJECT_ROOT}.${category}.${accountId}.${aggregateId}.${type}`
}

/** What an event subject names, read back: consumers route by it without decoding the message. */
export interface EventSubjectParts {
  /** Not checked against the categories: a subject is read as it came. */
  readonly category: string
  readonly accountId: string
  readonly aggregateId: string
  readonly type: string
}

/**
 * The parts of `mats.<category>.<accountId>.<aggregateId>.<EventType>`, each `''` where the subject
 * has no such token: NATS allows no empty token, so `''` can only mean missing.
 */
export function eventSubjectParts(subject: string): EventSubjectParts {
  const [, category = '', accountId = '', aggregateId = '', type = ''] = subject.split('.')
  return { category, accountId, aggregateId, type }
}

/** Every event of one category in one account. */
export function accountSubjects(category: AggregateCategory, accountId: string): string {
  return `${SUBJECT_ROOT}.${category}.${accountId}.>`
}

/** Every event of one aggregate; `accountId` may be `*` when only the id is known. */
export function aggregateSubjects(category: AggregateCategory, accountId: string, aggregateId: string): string {
  return `${SUBJECT_ROOT}.${category}.${accountId}.${aggregateId}.*`
}

export function eventTypeSubjects(category: AggregateCategory, type: string): string {
  return `${SUBJECT_ROOT}.${category}.*.*.${type}`
}

/** The account a per-account subject names: the token after its root (`<root>.<accountId>`). */
export function accountAfter(root: string, subject: string): string {
  return subject.slice(root.length + 1)
}

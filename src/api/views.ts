import type { SessionDoc, TaskDoc } from '../../projections/index.js'
import { DEFAULT_AUTONOMY } from '../domain/sessions/autonomy.js'
import { microsToUsd } from '../domain/money.js'

/** The Session and Task resources of the spec, from their read-model documents. */
/** Every field a session stores is shown: what was given at creation, its autonomy, what its runs learned. */
export function sessionView(doc: SessionDoc) {
  const { _id, name, companyName, companyUrl, industry, targetAudience, createdAt } = doc
  return { id: _id, name, companyName, companyUrl, industry, targetAudience, autonomy: doc.autonomy ?? DEFAULT_AUTONOMY, factsLearned: doc.factsLearned ?? 0, createdAt }
}

export function taskView(doc: TaskDoc) {
  const { _id, sessionId, agentType, taskType, parentTaskId, status, priority, title, instruction, result, error, createdAt, startedAt, completedAt, usage, costMicros } = doc
  return {
    id: _id,
    sessionId,
    agentType,
    taskType,
    parentTaskId,
    rerunOf: doc.rerunOf ?? null,
    reruns: [...(doc.reruns ?? [])],
    scheduleId: doc.scheduleId ?? null,
    scheduledFor: doc.scheduledFor ?? null,
    status,
    priority,
    title,
    instruction,
    result: status === 'completed' ? result : null,
    error,
    createdAt,
    startedAt,
    completedAt,
    usage,
    costUsd: microsToUsd(costMicros),
  }
}

/** The document an aggregate's own history folds into; it has one once the command that created it answered. */
export function documentOf<Doc>(doc: Doc | null, what: string): Doc {
  if (!doc) throw new Error(`the ${what}'s events fold into no document`)
  return doc
}

export type SessionView = ReturnType<typeof sessionView>
export type TaskView = ReturnType<typeof taskView>

import type { SessionDoc, TaskDoc } from '../../projections/index.js'
import { DEFAULT_AUTONOMY } from '../domain/sessions/autonomy.js'

/** The Session and Task resources of the spec, from their read-model documents. */
export function sessionView(doc: SessionDoc) {
  return { id: doc._id, name: doc.name, companyName: doc.companyName, companyUrl: doc.companyUrl, autonomy: doc.autonomy ?? DEFAULT_AUTONOMY, createdAt: doc.createdAt }
}

export function taskView(doc: TaskDoc) {
  const { _id, sessionId, agentType, taskType, parentTaskId, status, instruction, result, error, createdAt, startedAt, completedAt } = doc
  return { id: _id, sessionId, agentType, taskType, parentTaskId, status, instruction, result: status === 'completed' ? result : null, error, createdAt, startedAt, completedAt }
}

/** The document an aggregate's own history folds into; it has one once the command that created it answered. */
export function documentOf<Doc>(doc: Doc | null, what: string): Doc {
  if (!doc) throw new Error(`the ${what}'s events fold into no document`)
  return doc
}

export type SessionView = ReturnType<typeof sessionView>
export type TaskView = ReturnType<typeof taskView>

import type { ActionView } from '../api/actions.js'
import { oneLine, pageLine, type Pagination } from './render.js'

/** Text renderings of actions: enough for a person to decide, and for a model to pass the id to decide_action. */
export function actionText(action: ActionView): string {
  const head = `Action ${action.id} (task ${action.taskId}) is ${action.status}: ${action.action} on ${action.platform}. ${action.summary}`
  const details = [action.content ? `Content: ${oneLine(action.content, 500)}` : null, action.reason ? `Reason: ${action.reason}` : null, action.note ? `Note: ${action.note}` : null]
  return [head, ...details.filter((line) => line !== null)].join('\n')
}

export function pendingApprovalsText(actions: readonly ActionView[], pagination: Pagination): string {
  if (pagination.total === 0) return 'No actions await approval.'
  const lines = actions.map((a) => `- ${a.id}: ${a.action} on ${a.platform} (task ${a.taskId}, proposed ${a.proposedAt}): ${oneLine(a.summary)}`)
  return [pageLine('actions awaiting approval', actions.length, pagination), ...lines, 'Decide each with decide_action (approve or reject), as the user says.'].join('\n')
}

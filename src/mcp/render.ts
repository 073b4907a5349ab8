import type { Agent } from '../domain/agents/catalogue.js'
import type { SessionView, TaskView } from '../api/views.js'
import type { paginationFor } from '../contract/common.js'

/**
 * Text renderings of tool results: what a client that shows only text (or a model
 * reading it) needs to take the next step. The structured content carries everything.
 */
export type Pagination = ReturnType<typeof paginationFor>

export function agentsText(agents: readonly Agent[]): string {
  const lines = agents.map((a) => {
    const role = a.isSupervisor ? ' (supervisor: delegates to the specialists)' : ''
    const subs = a.subspecialties.map((s) => s.name).join(', ')
    return `- ${a.type}: ${a.name}${role}. ${a.description}${subs ? ` Sub-specialties: ${subs}.` : ''}`
  })
  return [`${agents.length} agents (pass the type as agentType to run_agent_task):`, ...lines].join('\n')
}

export function sessionText(session: SessionView, created = false): string {
  const company = [session.companyName, session.companyUrl].filter(Boolean).join(', ')
  const line = `session ${session.id} "${session.name}"${company ? ` (${company})` : ''}, created ${session.createdAt}`
  return created ? `Created ${line}. Pass its id as sessionId to run_agent_task.` : line
}

/** Everything the session holds, one field a line. */
export function sessionDetailsText(session: SessionView): string {
  const fields: [string, string | number | null][] = [
    ['Company', session.companyName],
    ['Site', session.companyUrl],
    ['Industry', session.industry],
    ['Target audience', session.targetAudience],
    ['Autonomy', session.autonomy],
    ['Facts learned by its runs', session.factsLearned],
  ]
  const lines = fields.filter(([, value]) => value !== null && value !== '').map(([name, value]) => `${name}: ${value}`)
  return [`${sessionText(session)}.`, ...lines, 'Pass its id as sessionId to run_agent_task.'].join('\n')
}

export function sessionsText(sessions: readonly SessionView[], pagination: Pagination): string {
  if (pagination.total === 0) return 'No sessions yet. Create one with create_session.'
  return [pageLine('sessions', sessions.length, pagination), ...sessions.map((s) => `- ${sessionText(s)}`)].join('\n')
}

export function taskText(task: TaskView): string {
  const rerun = task.rerunOf ? `, a re-run of task ${task.rerunOf}` : ''
  const head = `Task ${task.id} is ${task.status} (agent ${task.agentType}, session ${task.sessionId}${rerun}).`
  if (task.status === 'completed') return `${head}\n\nResult:\n\n${task.result ?? ''}`
  if (task.status === 'failed') return `${head}\nError: ${task.error ?? 'unknown'}\nTasks are not retried automatically: rerun_task runs it again.`
  return `${head}\nNot finished yet: call get_task with taskId "${task.id}" again in 10 to 30 seconds.`
}

export function tasksText(tasks: readonly TaskView[], pagination: Pagination): string {
  if (pagination.total === 0) return 'No tasks match.'
  const lines = tasks.map((t) => `- ${t.id} ${t.status} ${t.agentType} (session ${t.sessionId}, created ${t.createdAt}): ${oneLine(t.instruction ?? '')}`)
  return [pageLine('tasks', tasks.length, pagination), ...lines, 'Read a result with get_task.'].join('\n')
}

export function pageLine(what: string, shown: number, { page, totalPages, total }: Pagination): string {
  return `${shown} of ${total} ${what}, page ${page} of ${Math.max(totalPages, 1)}, newest first:`
}

export function oneLine(text: string, max = 100): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

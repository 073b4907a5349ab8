/** Parts shared by every offline deliverable: title and provenance note, brief, context, approvals. */
import type { AgentRunRequest } from '../provider.js'
import { type CompanyContext, listPhrase, quote, titleOf } from './text.js'

export const PROVENANCE_NOTE =
  "_Produced offline by the mats template-based planner from fixed playbooks, the brief and the session's company context. " +
  'No language model produced this document: it is a structured starting point, so review it before acting on it._'

export function header(request: AgentRunRequest): string[] {
  return [`# ${request.agent.name}: ${titleOf(request.task.title, request.task.instruction)}`, '', PROVENANCE_NOTE, '']
}

export function briefSection(instruction: string): string[] {
  return ['## Brief', '', quote(instruction), '']
}

export function contextSection(session: AgentRunRequest['session'], ctx: CompanyContext): string[] {
  const lines = ['## Context', '']
  for (const [label, value] of ctx.rows) {
    lines.push(`- **${label}:** ${value ?? 'unknown (not supplied on the session)'}`)
  }
  lines.push(`- **Session:** ${session.name}`, '')
  if (ctx.unknown.length > 0) {
    const fields = listPhrase(ctx.unknown.map((label) => label.toLowerCase()))
    lines.push(`Unknown: ${fields}. Supply ${ctx.unknown.length === 1 ? 'it' : 'them'} on the session so the next run can be specific; generic wording stands in below.`, '')
  }
  return lines
}

export interface Approval {
  /** Who would carry it out, when the document covers several agents. */
  readonly owner: string | null
  readonly action: string
}

/** Next steps, ending with the write actions that stay drafts until a person approves them. */
export function nextStepsSection(ctx: CompanyContext, approvals: readonly Approval[]): string[] {
  const steps: string[] = []
  if (ctx.unknown.length > 0) steps.push(`Supply the missing context: ${listPhrase(ctx.unknown.map((label) => label.toLowerCase()))}.`)
  steps.push(
    'Confirm the objective, the budget and the one primary metric this work is judged on.',
    'Connect the marketing platforms involved so the drafts can be checked against live data.',
    'Approve, edit or reject each draft below. Nothing has been published, spent or sent.',
  )
  const lines = ['## Next steps and approvals', '', ...steps.map((step, i) => `${i + 1}. ${step}`), '']
  lines.push('**Awaiting approval (prepared as drafts only, not done):**', '')
  for (const approval of approvals) {
    lines.push(`- ${approval.owner === null ? '' : `${approval.owner}: `}${approval.action}: draft only, awaits approval`)
  }
  lines.push('')
  return lines
}

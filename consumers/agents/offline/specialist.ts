/** Builds a specialist's deliverable, or its section inside the supervisor's growth plan. */
import type { Agent } from '../../../src/domain/agents/catalogue.js'
import type { AgentRunRequest } from '../provider.js'
import { briefSection, contextSection, header, nextStepsSection } from './document.js'
import { chooseSubspecialties, pickSubspecialties, type SpecialistPick, type SubspecialtyPick } from './matching.js'
import { PLAYBOOKS, subspecialtyPlaybook } from './playbooks/index.js'
import { type CompanyContext, contextOf, fill, termsOf } from './text.js'

export interface Depth {
  /** Heading level of each subspecialty ("###" for a standalone document). */
  readonly heading: string
  readonly maxSubspecialties: number
  readonly minSubspecialties: number
  readonly maxActions: number
  /** Keep only subspecialties scoring at least half the best one. */
  readonly focused: boolean
}

export const STANDALONE: Depth = { heading: '###', maxSubspecialties: 3, minSubspecialties: 2, maxActions: 5, focused: false }

function why(pick: SubspecialtyPick): string {
  return pick.matched.length > 0
    ? `_Why: the brief mentions ${pick.matched.map((term) => `"${term.text}"`).join(', ')}._`
    : '_Why: a core subspecialty of this agent; the brief did not name a more specific one._'
}

/** Actions for a subspecialty; a catalogue entry without a playbook falls back to its description. */
export function actionsFor(agent: Agent, pick: SubspecialtyPick, ctx: CompanyContext, max: number): string[] {
  const playbook = subspecialtyPlaybook(agent.type, pick.subspecialty.id)
  if (playbook === undefined) {
    return [`Apply ${pick.subspecialty.name.toLowerCase()} to the brief for ${ctx.company}: ${pick.subspecialty.description}`]
  }
  return playbook.actions.slice(0, max).map((action) => fill(action, ctx))
}

export function deliverablesFor(agent: Agent, picks: readonly SubspecialtyPick[]): string[] {
  return picks.map((pick) => subspecialtyPlaybook(agent.type, pick.subspecialty.id)?.deliverable ?? `${pick.subspecialty.name} recommendations`)
}

export function approachLines(agent: Agent, picks: readonly SubspecialtyPick[], ctx: CompanyContext, depth: Depth): string[] {
  const lines: string[] = []
  for (const pick of picks) {
    lines.push(`${depth.heading} ${pick.subspecialty.name}`, '', why(pick), '')
    for (const action of actionsFor(agent, pick, ctx, depth.maxActions)) lines.push(`- ${action}`)
    lines.push('')
  }
  return lines
}

export function picksFor(agent: Agent, instruction: string, depth: Depth): SubspecialtyPick[] {
  return pickSubspecialties(agent, termsOf(instruction), depth.maxSubspecialties, depth.minSubspecialties, depth.focused)
}

/** The whole Markdown deliverable of a specialist agent. */
export function buildSpecialistDocument(request: AgentRunRequest): string {
  const { agent, task, session } = request
  const ctx = contextOf(session)
  const picks = picksFor(agent, task.instruction, STANDALONE)
  const playbook = PLAYBOOKS[agent.type]
  const lines = [
    ...header(request),
    ...briefSection(task.instruction),
    ...contextSection(session, ctx),
    '## Approach',
    '',
    `Subspecialties of the ${agent.name} that apply to this brief, with concrete actions for ${ctx.company}:`,
    '',
    ...approachLines(agent, picks, ctx, STANDALONE),
    '## Deliverables checklist',
    '',
    ...deliverablesFor(agent, picks).map((item) => `- [ ] ${item}`),
    `- [ ] Assumptions and open questions for ${ctx.company}, for review`,
    '',
    '## KPIs to track',
    '',
    ...playbook.kpis.map((kpi) => `- ${fill(kpi, ctx)}`),
    '',
    ...nextStepsSection(
      ctx,
      playbook.approvals.map((action) => ({ owner: null, action: fill(action, ctx) })),
    ),
  ]
  return lines.join('\n')
}

export const IN_PLAN: Depth = { heading: '###', maxSubspecialties: 2, minSubspecialties: 1, maxActions: 3, focused: true }

/** A specialist's section inside the supervisor's plan, headed with the specialist's name. */
export function buildSpecialistSection(specialist: SpecialistPick, ctx: CompanyContext): { lines: string[]; deliverables: string[] } {
  const { agent } = specialist
  const picks = chooseSubspecialties(agent, specialist.ranked, IN_PLAN.maxSubspecialties, IN_PLAN.minSubspecialties, IN_PLAN.focused)
  const playbook = PLAYBOOKS[agent.type]
  const kpis = playbook.kpis.slice(0, 3).map((kpi) => fill(kpi, ctx))
  const lines = [`## ${agent.name}`, '', `_Role in this plan: ${fill(playbook.role, ctx)}._`, '', ...approachLines(agent, picks, ctx, IN_PLAN), `**KPIs:** ${kpis.join('; ')}.`, '']
  return { lines, deliverables: deliverablesFor(agent, picks) }
}

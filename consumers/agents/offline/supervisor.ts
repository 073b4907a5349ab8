/** The growth marketer's deliverable: a short growth plan composed from the relevant specialists. */
import { type Agent, findAgent, SPECIALIST_TYPES } from '../../../src/domain/agents/catalogue.js'
import type { AgentRunRequest } from '../provider.js'
import { type Approval, briefSection, contextSection, header, nextStepsSection } from './document.js'
import { pickSpecialists, pickSubspecialties, type SpecialistPick } from './matching.js'
import { once } from './once.js'
import { PLAYBOOKS } from './playbooks/index.js'
import { approachLines, buildSpecialistSection, deliverablesFor, type Depth } from './specialist.js'
import { type CompanyContext, contextOf, fill, listPhrase, type Term, termsOf } from './text.js'

const DELEGATION = 'brief-delegation'
const OWN: Depth = { heading: '####', maxSubspecialties: 2, minSubspecialties: 1, maxActions: 3, focused: true }

/** First matching goal wins; the last entry is the default. */
const OBJECTIVES: readonly (readonly [words: readonly string[], objective: string])[] = [
  [['launch', 'release', 'gtm', 'announce'], 'launch successfully: hit the sign-up, activation and revenue targets agreed for the first 30 days'],
  [['lead', 'pipeline', 'demo', 'b2b', 'mql', 'account'], 'grow qualified pipeline: more sales-accepted leads at a cost per opportunity below target'],
  [['retention', 'churn', 'loyalty', 'repeat', 'winback'], 'improve retention: lift repeat purchase and 90-day retention'],
  [['awareness', 'brand', 'reach', 'visibility'], 'grow awareness among {audience}: reach, share of voice and branded search'],
  [['sale', 'revenue', 'ecommerce', 'conversion', 'roas'], 'grow revenue profitably: more conversions at or under the break-even CPA'],
  [[], 'grow profitably, judged on one primary metric agreed before work starts'],
]

function objectiveOf(brief: readonly Term[], ctx: CompanyContext): string {
  const found = OBJECTIVES.find(([words]) => words.length === 0 || words.some((word) => brief.some((term) => term.key === word)))
  return `For ${ctx.company}, ${fill(found?.[1] ?? '', ctx)}.`
}

/** Whole-percent shares proportional to score (+2 so fallback picks get a slice), summing to 100. */
export function sharesOf(picks: readonly SpecialistPick[]): number[] {
  const weights = picks.map((pick) => pick.score + 2)
  const total = weights.reduce((sum, w) => sum + w, 0)
  const exact = weights.map((w) => (w * 100) / total)
  const shares = exact.map(Math.floor)
  let remainder = 100 - shares.reduce((sum, s) => sum + s, 0)
  const order = exact.map((value, index) => ({ frac: value - Math.floor(value), index })).sort((a, b) => b.frac - a.frac || a.index - b.index)
  for (const { index } of order) {
    if (remainder <= 0) break
    shares[index] = (shares[index] ?? 0) + 1
    remainder -= 1
  }
  return shares
}

function planSection(picks: readonly SpecialistPick[], brief: readonly Term[], ctx: CompanyContext): string[] {
  const names = picks.map((pick) => pick.agent.name)
  const shares = sharesOf(picks)
  return [
    '## Growth plan',
    '',
    `**Objective:** ${objectiveOf(brief, ctx)}`,
    '',
    '**Phases**',
    '',
    '1. **Weeks 1–2, foundations:** agree the primary metric, check tracking, confirm the audience and prepare every draft listed below.',
    `2. **Weeks 3–6, launch:** put the work of ${listPhrase(names)} live: owned channels first, then earned, then paid, each live change only after approval.`,
    '3. **Weeks 7–12, optimise:** weekly learning review; move effort and budget to the channel with the best CAC payback.',
    '',
    '**Channel mix** (indicative share of effort and budget, weighted by how strongly the brief calls for each specialist)',
    '',
    '| Specialist | Role | Share |',
    '|---|---|---|',
    ...picks.map((pick, i) => `| ${pick.agent.name} | ${fill(PLAYBOOKS[pick.agent.type].role, ctx)} | ${shares[i] ?? 0}% |`),
    '',
  ]
}

/** The supervisor without its delegation subspecialty, which it plans with: one per agent, so that matching indexes it once. */
const planningCopyOf = once((agent: Agent): Agent => Object.freeze({ ...agent, subspecialties: agent.subspecialties.filter((sub) => sub.id !== DELEGATION) }), new WeakMap())

/** The supervisor's own relevant subspecialties; delegation is stated once, not as actions. */
function ownFocus(request: AgentRunRequest, brief: readonly Term[], specialists: number, ctx: CompanyContext): { lines: string[]; deliverables: string[] } {
  const { agent } = request
  const planning = planningCopyOf(agent)
  const picks = pickSubspecialties(planning, brief, OWN.maxSubspecialties, OWN.minSubspecialties, OWN.focused)
  const delegation = agent.subspecialties.find((sub) => sub.id === DELEGATION)
  const lines = [`### ${agent.name} focus`, '', ...approachLines(agent, picks, ctx, OWN)]
  if (delegation !== undefined) {
    lines.push(`**${delegation.name}:** the brief is split into ${specialists} scoped tasks, one per specialist section below, each with its own actions and KPIs.`, '')
  }
  return { lines, deliverables: deliverablesFor(agent, picks) }
}

/** The whole Markdown deliverable of the supervisor. */
export function buildSupervisorDocument(request: AgentRunRequest): string {
  const { task, session } = request
  const ctx = contextOf(session)
  const brief = termsOf(task.instruction)
  const picks = pickSpecialists(SPECIALIST_TYPES.map(findAgent), brief)
  const own = ownFocus(request, brief, picks.length, ctx)
  const sections = picks.map((pick) => ({ pick, ...buildSpecialistSection(pick, ctx) }))
  const approvals: Approval[] = [
    ...PLAYBOOKS[request.agent.type].approvals.map((action) => ({ owner: request.agent.name, action: fill(action, ctx) })),
    ...picks.map((pick) => ({ owner: pick.agent.name, action: fill(PLAYBOOKS[pick.agent.type].approvals[0] ?? 'Any live change', ctx) })),
  ]
  const lines = [
    ...header(request),
    ...briefSection(task.instruction),
    ...contextSection(session, ctx),
    ...planSection(picks, brief, ctx),
    ...own.lines,
    ...sections.flatMap((section) => section.lines),
    '## Deliverables checklist',
    '',
    ...own.deliverables.map((item) => `- [ ] ${item}`),
    ...sections.flatMap((section) => section.deliverables.map((item) => `- [ ] ${section.pick.agent.name}: ${item}`)),
    '- [ ] Consolidated review: consistent messaging, tracking and dates across all specialists',
    '',
    '## KPIs to track',
    '',
    ...PLAYBOOKS[request.agent.type].kpis.map((kpi) => `- ${fill(kpi, ctx)}`),
    '',
    ...nextStepsSection(ctx, approvals),
  ]
  return lines.join('\n')
}

import { AGENTS } from '../../../src/domain/agents/catalogue.js'
import type { Autonomy } from '../../../src/domain/sessions/autonomy.js'
import type { AgentRunRequest } from '../provider.js'

/** The newest facts a prompt carries; older ones stay in the session's log. */
export const FACTS_IN_PROMPT = 40

const AUTONOMY_RULES: { readonly [A in Autonomy]: string } = {
  'draft-only': 'This workspace is draft-only: every write action you propose is kept as a draft for the team; nothing is published, sent or changed.',
  'approval-required': 'This workspace requires approval: every write action you propose waits for a person to approve it; nothing is published, sent or changed until then.',
  autonomous: 'This workspace is autonomous: a write action you propose is executed if a connector for its platform is available; otherwise it is recorded as not executed.',
}

/**
 * Who the agent is (its catalogue entry), whom it works for (the session's company
 * context and what earlier runs learned) and how it works (tools, autonomy, output).
 */
export function systemPrompt(request: AgentRunRequest): string {
  const { agent, session } = request
  const company = [
    ['Company', session.companyName],
    ['Website', session.companyUrl],
    ['Industry', session.industry],
    ['Target audience', session.targetAudience],
  ].filter((entry): entry is [string, string] => entry[1] !== null)
  const facts = session.facts.slice(-FACTS_IN_PROMPT)
  return [
    `You are the ${agent.name}, one of ten marketing agents of mats. ${agent.description}`,
    '',
    'Your subspecialties:',
    ...agent.subspecialties.map((sub) => `- ${sub.name}: ${sub.description}`),
    '',
    `## Workspace: ${session.name}`,
    ...(company.length > 0 ? company.map(([label, value]) => `- ${label}: ${value}`) : ['- No company details were given: ask for none, state your assumptions.']),
    ...(facts.length > 0 ? ['', 'What earlier tasks in this workspace learned about the company:', ...facts.map((fact) => `- ${fact}`)] : []),
    '',
    '## How you work',
    '- Work only from the brief, the workspace context and what your tools return. Never invent results, metrics or access you do not have.',
    '- Use propose_action for every change on a live platform (posts, ads, budgets, emails, site changes). Never claim something was published or changed unless the tool says it was executed.',
    `- ${AUTONOMY_RULES[session.autonomy]}`,
    '- Use remember_fact for durable facts about the company you learned from the brief (not for task details).',
    ...(agent.isSupervisor ? supervisorRules() : []),
    '- Finish with your full deliverable in Markdown as your final message, without calling a tool. Be concrete: steps, owners, numbers, copy.',
  ].join('\n')
}

function supervisorRules(): string[] {
  return [
    '- You supervise the specialists below. Use delegate_to_specialist for parts of the brief that need their depth; call it several times in one turn for independent parts so they run in parallel; then compose their deliverables into one plan.',
    ...AGENTS.filter((agent) => !agent.isSupervisor).map((agent) => `  - ${agent.type}: ${agent.name}. ${agent.description}`),
  ]
}

/** The first message: the brief itself. */
export function briefMessage(request: AgentRunRequest): string {
  const { task } = request
  return [task.title ? `# ${task.title}` : null, task.instruction].filter((line) => line !== null).join('\n\n')
}

/** Entry point of the offline deliverable builder, and the prompt a language model would have got. */
import type { AgentRunRequest } from '../provider.js'
import { buildSpecialistDocument } from './specialist.js'
import { buildSupervisorDocument } from './supervisor.js'

/** The Markdown deliverable for a run. Pure: the same request always gives the same text. */
export function buildDeliverable(request: AgentRunRequest): string {
  return request.agent.isSupervisor ? buildSupervisorDocument(request) : buildSpecialistDocument(request)
}

/**
 * The prompt a language-model provider would have sent (instruction, agent, company context).
 * The offline provider sends nothing; it uses this only to estimate input tokens comparably.
 */
export function offlinePrompt(request: AgentRunRequest): string {
  const { agent, task, session } = request
  const known = (value: string | null): string => value ?? 'unknown'
  return [
    `You are the ${agent.name}. ${agent.description}`,
    'Subspecialties:',
    ...agent.subspecialties.map((sub) => `- ${sub.name}: ${sub.description}`),
    'Company context:',
    `- Session: ${session.name}`,
    `- Company: ${known(session.companyName)}`,
    `- Website: ${known(session.companyUrl)}`,
    `- Industry: ${known(session.industry)}`,
    `- Target audience: ${known(session.targetAudience)}`,
    ...(task.title === null ? [] : [`Title: ${task.title}`]),
    'Brief:',
    task.instruction,
  ].join('\n')
}

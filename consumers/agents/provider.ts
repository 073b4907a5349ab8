import type { Agent, AgentType } from '../../src/domain/agents/catalogue.js'

/** What an agent run gets: the brief, the agent's catalogue entry, and the company context. */
export interface AgentRunRequest {
  readonly task: {
    readonly id: string
    readonly agentType: AgentType
    readonly instruction: string
    readonly title: string | null
  }
  readonly agent: Agent
  readonly session: {
    readonly name: string
    readonly companyName: string | null
    readonly companyUrl: string | null
    readonly industry: string | null
    readonly targetAudience: string | null
  }
}

export interface Usage {
  readonly provider: string
  readonly model: string
  readonly inputTokens: number
  readonly outputTokens: number
}

export interface AgentRunResult {
  /** The deliverable, in Markdown. */
  readonly output: string
  readonly usage: Usage
  /** What the run cost, in micro-USD (1 USD = 1 000 000). */
  readonly costMicros: number
}

/** Why a run failed, in words a caller can act on; becomes the task's `error`. */
export class AgentRunError extends Error {
  override readonly name = 'AgentRunError'
}

/**
 * Runs one agent on one brief. Implementations: the offline provider (default, no
 * network) and language-model providers. `signal` aborts on the run's time limit or on
 * shutdown; a provider must stop promptly and reject when it fires.
 */
export interface AgentProvider {
  readonly name: string
  run(request: AgentRunRequest, signal: AbortSignal): Promise<AgentRunResult>
}

export type { Agent, AgentType }

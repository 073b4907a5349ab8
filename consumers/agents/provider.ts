import type { ActionStatus, ProposedAction } from '../../src/domain/actions/proposed-action.js'
import type { Agent, AgentType } from '../../src/domain/agents/catalogue.js'
import type { Autonomy } from '../../src/domain/sessions/autonomy.js'
import type { FailureReason, TaskUsage } from '../../src/domain/tasks/task.js'

/** What an agent run gets: the brief, the agent's catalogue entry, and the session's company context. */
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
    readonly autonomy: Autonomy
    /** Durable facts earlier runs in this session learned, oldest first. */
    readonly facts: readonly string[]
  }
}

/** A proposed write action as recorded (an event) with what the session's autonomy made of it. */
export interface RecordedAction extends ProposedAction {
  readonly actionId: string
  readonly status: ActionStatus
  readonly note: string | null
}

export interface DelegationOutcome {
  readonly taskId: string
  readonly agentType: AgentType
  readonly status: 'completed' | 'failed'
  readonly output: string | null
  readonly error: string | null
}

/**
 * What a run may do beyond producing text. The worker implements them and records each
 * as an event; a provider never writes to the log itself.
 */
export interface RunEffects {
  /** Records a write action; it is executed only if the session's autonomy allows and a connector is reachable. */
  proposeAction(action: ProposedAction): Promise<RecordedAction>
  /** Runs part of the brief as a delegated task of a specialist; only the supervisor gets this. */
  readonly delegate: ((brief: { agentType: AgentType; instruction: string }) => Promise<DelegationOutcome>) | null
}

export type Usage = TaskUsage

export interface AgentRunResult {
  /** The deliverable, in Markdown. */
  readonly output: string
  readonly usage: Usage
  /** What the run cost, in micro-USD (1 USD = 1 000 000). */
  readonly costMicros: number
  /** Durable facts about the company for the session to keep. */
  readonly learnedFacts: readonly string[]
}

/** What a failed run had already used: tokens spent before a failure are still paid for. */
export interface Spent {
  readonly usage: Usage
  readonly costMicros: number
}

/** Why a run failed, in words a caller can act on; becomes the task's `error`. */
export class AgentRunError extends Error {
  override readonly name = 'AgentRunError'
  readonly reason: FailureReason
  readonly spent: Spent | null
  /** The cause is a fault of ours, not the agent's: its message is for the log, not the task. */
  readonly internal: boolean
  constructor(message: string, options: { reason?: FailureReason; spent?: Spent | null; cause?: unknown; internal?: boolean } = {}) {
    super(message, { cause: options.cause })
    this.reason = options.reason ?? 'agent_error'
    this.spent = options.spent ?? null
    this.internal = options.internal ?? false
  }
}

/**
 * Runs one agent on one brief. Implementations: the offline provider (default, no
 * network) and the language-model provider. `signal` aborts on the run's time limit or on
 * shutdown; a provider must stop promptly and reject when it fires.
 */
export interface AgentProvider {
  readonly name: string
  run(request: AgentRunRequest, effects: RunEffects, signal: AbortSignal): Promise<AgentRunResult>
}

export type { Agent, AgentType }

import type { Logger } from 'pino'
import type { RunningTask } from '../../src/commands/start-task/start-task.js'
import type { Issuer } from '../../src/commands/execute.js'
import type { Recorded } from '../../src/domain/message.js'
import type { FinishTask, TaskCreated } from '../../src/domain/tasks/task.js'
import type { AppContext } from '../../src/app-context.js'
import type { WorkerHeartbeats } from '../../src/infra/nats/worker-heartbeats.js'
import type { AgentProvider } from '../agents/provider.js'
import type { PlatformConnectors } from '../connectors/platform-connectors.js'
import type { RunCancellations } from './cancellations.js'

/**
 * What a run needs, below the modules that run it: run-task runs a task, run-agent its agent,
 * run-effects what the agent asks for; each imports only the one after it and this, so the
 * imports stay one-way (a delegated task is run through the `ChildRunner` run-task hands down).
 */
export interface TaskKey {
  readonly accountId: string
  readonly taskId: string
}

export interface TaskRef extends TaskKey {
  /** The delivered event. */
  readonly created: Recorded<TaskCreated>
  /** The TaskCreated was delivered before: whoever held it stopped acknowledging it. */
  readonly redelivered: boolean
}

export interface RunContext {
  readonly infra: AppContext
  readonly provider: AgentProvider
  readonly connectors: PlatformConnectors
  readonly workerId: string
  /** Who else is alive: a redelivered task is lost only if its claimer is not. */
  readonly heartbeats: WorkerHeartbeats
  /** Aborts a run whose task is cancelled. */
  readonly cancellations: RunCancellations
  readonly timeoutMs: number
  /** Aborts every run when the worker's shutdown grace period is over. */
  readonly shutdown: AbortSignal
  readonly log: Logger
  /**
   * Tasks whose claim by this worker NATS did not answer in time: stored or not, nobody knows
   * yet. Found running under this worker later, such a task was never run: it is run then.
   */
  readonly claimsInDoubt: Set<string>
}

export type Running = RunningTask

/**
 * Claims a delegated task and runs it here, under its supervisor's run (`parent`); null when
 * another worker claimed it first.
 */
export type ChildRunner = (childKey: TaskKey, issuer: Issuer, parent: AbortSignal) => Promise<FinishTask | null>

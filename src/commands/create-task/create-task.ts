import type { AgentType } from '../../domain/agents/catalogue.js'
import { ConflictError } from '../../domain/errors.js'
import { usdToMicros } from '../../domain/money.js'
import { billingMonth, taskFingerprint, tickFingerprint } from '../../domain/tasks/identity.js'
import { decideCreateTask, Task, type Priority, type TaskCreated, type TaskEvent, type TaskState, type TaskType } from '../../domain/tasks/task.js'
import type { CommandContext } from '../context.js'
import { settleWithin } from '../../infra/deadline.js'
import type { DispatchDoorbell } from '../../infra/nats/dispatch-doorbell.js'
import { AppendInDoubtError, EventStoreUnavailableError } from '../../infra/nats/event-store.js'
import { PendingTasks } from '../../infra/nats/pending-tasks.js'
import { requireSession, type KnownSessions } from '../../queries/require-session.js'
import type { Budgets } from './budget.js'
import { execute, type Executed, type Issuer } from '../execute.js'
import { releaseIdentity } from '../release-identity.js'

/** A task's creation checks the session (remembered once found), reserves from the budget view, and rings the workers' doorbell. */
export interface CreateTaskContext extends CommandContext {
  readonly budgets: Pick<Budgets, 'reserve' | 'release'>
  readonly knownSessions: KnownSessions
  readonly doorbell: Pick<DispatchDoorbell, 'ring'>
}

export interface CreateTask {
  /** Chosen by the caller, so that it can listen for the task's events before it exists. */
  readonly taskId: string
  readonly sessionId: string
  readonly agentType: AgentType
  readonly instruction: string
  readonly title: string | null
  readonly priority: Priority
  readonly taskType?: TaskType
  readonly parentTaskId?: string | null
  /** A schedule's tick creating the task: carried on TaskCreated, and the task's identity is the tick's (ADR 0039). */
  readonly tick?: { readonly scheduleId: string; readonly scheduledFor: string }
}

/**
 * 404 for an unknown or foreign session, 402 over budget, 409 for an identical pending task.
 * Nothing here reads a read model: the log, its KV buckets and this process's view of spend
 * decide, so a POST never waits for the projector.
 */
export function createTask(infra: CreateTaskContext, accountId: string, input: CreateTask, issuer: Issuer): Promise<Executed<TaskState, TaskEvent>> {
  return createChecked(
    infra,
    accountId,
    input,
    (created) => execute(infra, Task, { accountId, aggregateId: input.taskId }, (state) => decideCreateTask(created, state), issuer, { isNew: true }),
    issuer.receivedAt,
  )
}

/**
 * A task's creation: the checks, then `append`, which stores its TaskCreated (alone, or in a
 * decision of several aggregates, as a delegation does) and returns the task as executed.
 * `receivedAt`: when the request asking for it arrived; its answer budget counts from there.
 */
export async function createChecked(
  infra: CreateTaskContext,
  accountId: string,
  input: CreateTask,
  append: (created: TaskCreated['data']) => Promise<Executed<TaskState, TaskEvent>>,
  receivedAt: number | null,
): Promise<Executed<TaskState, TaskEvent>> {
  infra.link.assertUp()
  const appendBy = (receivedAt ?? Date.now()) + answerWithinMs(infra) - infra.config.NATS_TIMEOUT_MS
  const now = infra.clock()
  const reservedMicros = usdToMicros(infra.config.TASK_RESERVATION_USD)
  const fingerprint = input.tick ? tickFingerprint(input.tick.scheduleId, input.tick.scheduledFor) : taskFingerprint(input.sessionId, input.agentType, input.instruction)
  const lock = PendingTasks.key(accountId, fingerprint)
  // The three checks at once: a POST waits for the slowest, not for their sum. A refusal
  // is the first in this order (404, 402, 409), whatever answered first. A tick's task takes no
  // identity entry (ADR 0056): no other task has its tick's fingerprint, and the schedule's
  // guard stores the tick once; the entry was a KV write per tick for nothing.
  // A request that waited too long before its handler is refused before anything is taken.
  appendInTime(appendBy)
  const checking = Promise.allSettled([
    requireSession(infra, accountId, input.sessionId),
    infra.budgets.reserve(accountId, input.taskId, now, reservedMicros, appendBy),
    input.tick ? Promise.resolve(undefined) : acquireIdentity(infra, accountId, lock, input.taskId),
  ])
  const giveBack = ([, , identity]: Awaited<typeof checking>) => {
    infra.budgets.release(input.taskId)
    if (identity.status === 'fulfilled') releaseTaken(infra, lock, input.taskId, identity.value)
  }
  if (receivedAt !== null && (await settleWithin(checking, Math.max(1, appendBy - Date.now()))).outcome === 'late') {
    // Each check is bounded, but the identity's several NATS requests in a row, right after an
    // election, can together outlast the answer a request waits for: 503 now, and what they took
    // is given back when they end. Only for a request: its task id is its own, whereas a tick
    // retried meanwhile reuses its id, whose new reservation this give-back would remove.
    void checking.then(giveBack)
    throw new EventStoreUnavailableError(`the event log answered the checks too late to append in time (${answerWithinMs(infra)} ms to answer)`)
  }
  const checks = await checking
  const refused = checks.find((check) => check.status === 'rejected')
  const identity = checks[2]
  if (refused || identity.status === 'rejected') {
    giveBack(checks)
    throw refused?.reason
  }
  try {
    appendInTime(appendBy)
    const created: TaskCreated['data'] = {
      sessionId: input.sessionId,
      agentType: input.agentType,
      taskType: input.taskType ?? 'instruction',
      instruction: input.instruction,
      title: input.title,
      priority: input.priority,
      fingerprint,
      ...(identity.value === undefined ? {} : { identityRevision: identity.value }),
      parentTaskId: input.parentTaskId ?? null,
      billingMonth: billingMonth(now),
      reservedMicros,
      ...(input.tick ?? {}),
    }
    const executed = await append(created)
    if (executed.state.status === 'absent') throw new Error('task creation appended no TaskCreated')
    announceStored(infra, accountId, input.agentType)
    return executed
  } catch (err) {
    if (err instanceof AppendInDoubtError) {
      afterDoubt(infra, err, accountId, input, lock, identity.value)
      throw err
    }
    infra.budgets.release(input.taskId)
    releaseTaken(infra, lock, input.taskId, identity.value)
    throw err
  }
}

/** A task stored: counted, and the workers told that its account has work. */
function announceStored(infra: CreateTaskContext, accountId: string, agentType: AgentType): void {
  infra.metrics.taskCreated(agentType)
  infra.doorbell.ring(accountId)
}

/** Removes the identity entry the creation took, if it took one. */
function releaseTaken(infra: CreateTaskContext, lock: string, taskId: string, revision: number | undefined): void {
  if (revision !== undefined) releaseIdentity(infra, lock, taskId, revision)
}

/**
 * The append was answered 503 but may yet be stored: the task keeps its identity entry (an
 * identical brief sent again is a 409 naming it, not a second task) and its reservation
 * until the log says it was not stored.
 */
function afterDoubt(infra: CreateTaskContext, err: AppendInDoubtError, accountId: string, input: CreateTask, lock: string, identityRevision: number | undefined): void {
  void err.settled.then((settled) => {
    infra.log.info({ taskId: input.taskId, settled }, 'a task creation answered 503 is settled')
    if (settled === 'stored') return announceStored(infra, accountId, input.agentType)
    infra.budgets.release(input.taskId)
    // Unknown: the entry is cleared by the next identical brief once its grace has passed.
    if (settled === 'not-stored') releaseTaken(infra, lock, input.taskId, identityRevision)
  })
}

/**
 * Within how long a POST is answered, whatever NATS does (invariant 11: 503 within 2 s), with
 * room for HTTP; or twice NATS_TIMEOUT_MS where an operator raised that past 800 ms. The checks
 * get what the append (one NATS_TIMEOUT_MS at most) leaves of it.
 */
function answerWithinMs(infra: CommandContext): number {
  return Math.max(1900, 2 * infra.config.NATS_TIMEOUT_MS + 300)
}

/**
 * The checks took so long (NATS slow to answer: an election, an overloaded server) that the
 * append could end past the answer's time: refused now, as NATS out of reach is (503 with
 * Retry-After), before anything is written.
 */
function appendInTime(appendBy: number): void {
  const late = Date.now() - appendBy
  if (late > 0) throw new EventStoreUnavailableError(`the event log answered the checks ${late} ms too late to append in time`)
}

/** A request that took the entry but has not appended yet is given this long. */
const CREATION_GRACE_MS = 30_000

/**
 * The entry's holder is pending, or still being created by a concurrent request: 409.
 * An entry left by a task that is no longer pending (its claimer died before clearing
 * it) or by a request that died before appending is stale and cleared. Returns the entry's
 * revision, which the task's TaskCreated carries to release it by (ADR 0050).
 */
async function acquireIdentity(infra: CommandContext, accountId: string, lock: string, taskId: string): Promise<number> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const result = await infra.pendingTasks.acquire(lock, taskId)
    // The same task asked again (its first append's answer was lost): the entry is its own.
    if (result.acquired || result.holder === taskId) return result.revision
    const holder = await infra.events.load(Task, { accountId, aggregateId: result.holder })
    const beingCreated = holder.state.status === 'absent' && infra.clock().getTime() - result.since.getTime() < CREATION_GRACE_MS
    if (holder.state.status === 'pending' || beingCreated) {
      throw new ConflictError(`an identical task is already pending in this session: ${result.holder}`, { code: 'identical_task_pending', details: { existingTaskId: result.holder } })
    }
    await infra.pendingTasks.releaseStale(lock, result.revision)
  }
  throw new ConflictError('an identical task is being created at this moment; retry shortly', { code: 'identical_task_being_created' })
}

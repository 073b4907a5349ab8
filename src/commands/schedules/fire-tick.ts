import { BudgetExhaustedError, NotFoundError } from '../../domain/errors.js'
import { decideTick, isDue, isPastCatchup, overlaps, Schedule, tickTaskId, type ScheduleEvent, type ScheduleState, type SkipReason } from '../../domain/schedules/schedule.js'
import type { Recorded } from '../../domain/message.js'
import { Task, type TaskCreated } from '../../domain/tasks/task.js'
import { ConcurrencyError } from '../../infra/nats/event-store.js'
import { streamOf } from '../../infra/nats/subjects.js'
import { createChecked, type CreateTaskContext } from '../create-task/create-task.js'
import type { Executed, Issuer } from '../execute.js'
import { appendAlone, type AppendFired } from './tick-batch.js'

/** A schedule as a scheduler last knew it: its state and the version its next append is guarded by. */
export interface KnownSchedule {
  readonly key: { readonly accountId: string; readonly aggregateId: string }
  readonly state: ScheduleState
  readonly version: number
}

export interface FireContext extends CreateTaskContext {
  /** Whether the account's ticks are within their rate (SCHEDULE_TICKS_PER_MIN). */
  readonly admitTick: (accountId: string, now: Date) => boolean
  /** Told of each attempt to store a decision: stored, or refused by the guard (another scheduler stored the tick first). */
  readonly onAttempt?: (outcome: 'stored' | 'refused', known: KnownSchedule, tick: TickToDecide) => void
  /** How a fired tick's pair is appended: alone by default, or with the account's other ticks due together (TickBatch). */
  readonly appendFired?: AppendFired
}

export interface TickToDecide {
  readonly scheduledFor: Date
  /** Set when the tick stands for this many ticks missed past the catch-up window. */
  readonly missedTicks?: number
}

/**
 * Decides one tick and stores the decision, guarded by the schedule's version: fired (the
 * task's TaskCreated and ScheduleFired in one atomic batch) or skipped with why. A scheduler
 * that loses the race to another reads what the winner stored and decides nothing: each
 * tick is stored once, however many schedulers decide it (ADR 0039).
 */
export async function fireTick(infra: FireContext, known: KnownSchedule, tick: TickToDecide, issuer: Issuer): Promise<KnownSchedule> {
  const { state } = known
  if (!isDue(state, tick.scheduledFor)) return known
  try {
    const stored = await decideAndStore(infra, known, tick, issuer)
    infra.onAttempt?.('stored', known, tick)
    return stored
  } catch (err) {
    if (!(err instanceof ConcurrencyError)) throw err
    infra.onAttempt?.('refused', known, tick)
    // Another scheduler stored this tick (or the schedule changed): learn what it is now.
    const fresh = await infra.events.catchUp(Schedule, known.key, known, { atLeast: known.version + 1 })
    if (fresh.version > known.version) return { key: known.key, ...fresh }
    // Refused, yet nothing after what it knew: that was ahead of the log (a document kept
    // through a stream restored from an older backup, ADR 0061). The log decides.
    const loaded = await infra.events.load(Schedule, known.key)
    return { key: known.key, state: loaded.state, version: loaded.version }
  }
}

async function decideAndStore(infra: FireContext, known: KnownSchedule, tick: TickToDecide, issuer: Issuer): Promise<KnownSchedule> {
  const blocked = await blockedBefore(infra, known, tick)
  if (blocked) return await storeSkip(infra, known, tick, blocked, issuer)
  try {
    return await storeFired(infra, known, tick.scheduledFor, issuer)
  } catch (err) {
    const reason = refusalReason(err)
    if (!reason) throw err
    return await storeSkip(infra, known, tick, reason, issuer)
  }
}

/** What holds the tick back before any check of a task's creation: its lateness, overlap, the account's tick rate. */
async function blockedBefore(infra: FireContext, known: KnownSchedule, tick: TickToDecide): Promise<SkipReason | null> {
  const state = known.state
  if (state.status !== 'active') return null
  const now = infra.clock()
  if (tick.missedTicks !== undefined || isPastCatchup(state, tick.scheduledFor, now)) return 'outside_catchup_window'
  if (state.spec.overlap === 'skip' && state.lastTaskId) {
    const previous = await infra.events.load(Task, { accountId: known.key.accountId, aggregateId: state.lastTaskId })
    if (overlaps(state, previous.state.status)) return 'overlap'
  }
  if (!infra.admitTick(known.key.accountId, now)) return 'rate_limited'
  return null
}

/** A refusal of the task's creation that the tick records as skipped, instead of an error loop. */
function refusalReason(err: unknown): SkipReason | null {
  if (err instanceof BudgetExhaustedError) return 'budget_exhausted'
  if (err instanceof NotFoundError) return 'session_missing'
  return null
}

async function storeSkip(infra: FireContext, known: KnownSchedule, tick: TickToDecide, reason: SkipReason, issuer: Issuer): Promise<KnownSchedule> {
  const drafts = decideTick({ scheduledFor: tick.scheduledFor, taskId: '', blocked: reason, ...(tick.missedTicks ? { missedTicks: tick.missedTicks } : {}) }, known.state)
  const appended = await infra.events.append(Schedule, known.key, drafts, { expectedVersion: known.version, metadata: metadataOf(issuer), now: infra.clock() })
  return afterAppend(infra, known, appended)
}

/** The task's creation under every check of one (session, budget), stored with ScheduleFired. */
async function storeFired(infra: FireContext, known: KnownSchedule, scheduledFor: Date, issuer: Issuer): Promise<KnownSchedule> {
  const { state, key } = known
  if (state.status === 'absent') return known
  const taskId = tickTaskId(key.aggregateId, scheduledFor)
  const drafts = decideTick({ scheduledFor, taskId, blocked: null }, state)
  let after = known
  const { sessionId, agentType, instruction, title, priority } = state.spec
  const tick = { scheduleId: key.aggregateId, scheduledFor: scheduledFor.toISOString() }
  await createChecked(
    infra,
    key.accountId,
    { taskId, sessionId, agentType, instruction, title, priority, tick },
    async (created): Promise<Executed<typeof Task.initialState, TaskCreated>> => {
      const taskDrafts: TaskCreated[] = [{ type: 'TaskCreated', data: created }]
      const [taskAppended, scheduleAppended] = await (infra.appendFired ?? appendAlone(infra.events))({
        task: { key: { accountId: key.accountId, aggregateId: taskId }, drafts: taskDrafts, expectedVersion: 0 },
        schedule: { key, drafts, expectedVersion: known.version },
        options: { metadata: metadataOf(issuer), now: infra.clock() },
      })
      await infra.projectInline(streamOf('task'), taskId, taskAppended)
      after = await afterAppend(infra, known, scheduleAppended)
      const taskState = taskAppended.reduce((s, e) => Task.evolve(s, e as unknown as TaskCreated), Task.initialState)
      return { accountId: key.accountId, state: taskState, appended: taskAppended, history: taskAppended }
    },
    issuer.receivedAt,
  )
  return after
}

async function afterAppend(infra: FireContext, known: KnownSchedule, appended: readonly Recorded<ScheduleEvent>[]): Promise<KnownSchedule> {
  const last = appended.at(-1)
  if (!last) return known
  // Only the events after `known.version` are at hand: a document behind them is left to the projector.
  await infra.projectInline(streamOf('schedule'), known.key.aggregateId, appended, known.version)
  return { key: known.key, state: appended.reduce((s, e) => Schedule.evolve(s, e as unknown as ScheduleEvent), known.state), version: last.seq }
}

const metadataOf = (issuer: Issuer) => ({ correlationId: issuer.correlationId, causationId: null, keyId: issuer.keyId })

import { AGENT_TYPES } from '../../src/domain/agents/catalogue.js'
import { taskFingerprint } from '../../src/domain/tasks/identity.js'
import { randomUUID } from 'node:crypto'
import type { AppContext } from '../../src/app-context.js'
import { PRIORITIES, Task, type TaskEvent, type TaskStatus } from '../../src/domain/tasks/task.js'
import { ConcurrencyError, EventStoreUnavailableError } from '../../src/infra/nats/event-store.js'
/** A deliverable of the size agents write: about 1.5 KB of Markdown. */
const RESULT = `# Plan\n\n${'A paragraph of the deliverable, as an agent writes it, with headings and lists. '.repeat(18)}\n`

/**
 * Task histories as a busy account leaves them: statuses, agents, sessions and priorities
 * spread independently (one in ten pending, one in ten running, one in ten failed, the rest
 * completed), so that every filter of GET /v1/tasks selects a known share. Task `i` is a pure
 * function of `i`.
 */
export interface MixedTask {
  readonly status: TaskStatus
  readonly agentType: (typeof AGENT_TYPES)[number]
  readonly sessionId: string
  readonly priority: (typeof PRIORITIES)[number]
}

/** A multiplicative hash: independent-looking digits for each attribute of task `i`. */
const mix = (i: number) => Math.imul(i + 1, 2654435761) >>> 0

export function mixedTask(i: number, sessionIds: readonly string[]): MixedTask {
  const r = mix(i)
  const s = r % 10
  const status: TaskStatus = s === 0 ? 'pending' : s === 1 ? 'running' : s === 2 ? 'failed' : 'completed'
  return { status, agentType: AGENT_TYPES[(r >>> 4) % AGENT_TYPES.length]!, sessionId: sessionIds[(r >>> 8) % sessionIds.length]!, priority: PRIORITIES[(r >>> 12) % PRIORITIES.length]! }
}

export function mixedTaskDrafts(i: number, sessionIds: readonly string[]): TaskEvent[] {
  const { status, agentType, sessionId, priority } = mixedTask(i, sessionIds)
  const instruction = `Seeded brief number ${i}: plan the launch posts for the spring collection`
  const billing = { billingMonth: new Date().toISOString().slice(0, 7), reservedMicros: 10_000 }
  const usage = { provider: 'offline', model: 'seed', inputTokens: 300, outputTokens: 400 }
  const created = {
    sessionId,
    agentType,
    taskType: 'instruction',
    instruction,
    title: null,
    priority,
    fingerprint: taskFingerprint(sessionId, agentType, instruction),
    parentTaskId: null,
    ...billing,
  } as const
  const drafts: TaskEvent[] = [{ type: 'TaskCreated', data: created }]
  if (status === 'pending') return drafts
  drafts.push({ type: 'TaskStarted', data: { workerId: 'seed' } })
  if (status === 'completed') drafts.push({ type: 'TaskCompleted', data: { result: RESULT, usage, costMicros: 190, learnedFacts: [], agentType, ...billing } })
  if (status === 'failed') drafts.push({ type: 'TaskFailed', data: { error: 'the agent gave up', reason: 'agent_error', usage, costMicros: 90, agentType, ...billing } })
  return drafts
}

// Each task is one atomic batch (its whole history): more at once than nats-server holds per
// stream (50); the event store bounds and resends its own batches (ADR 0034).
const IN_FLIGHT = 64
const RESENDS = 20

/** Appends the histories `draftsOf(0..count-1)`, one new task each, `inFlight` at a time, as clients resend a 503. */
export async function appendTasks(infra: AppContext, accountId: string, count: number, draftsOf: (i: number) => TaskEvent[], inFlight = IN_FLIGHT): Promise<void> {
  const metadata = { correlationId: randomUUID(), causationId: null, keyId: null }
  let next = 0
  let resent = 0
  const one = async (i: number) => {
    const drafts = draftsOf(i)
    // One id for every attempt: a resent append whose first attempt was stored is refused, not stored twice.
    const aggregateId = randomUUID()
    for (let attempt = 1; ; attempt++) {
      try {
        await infra.events.append(Task, { accountId, aggregateId }, drafts, { expectedVersion: 0, metadata, now: new Date() })
        return
      } catch (err) {
        // Stored by an attempt whose answer was lost: the guard (version 0) refuses it again.
        if (err instanceof ConcurrencyError) return
        // The store's queue for atomic batches outlasted NATS_TIMEOUT_MS: a client's 503, sent again as a client would.
        if (!(err instanceof EventStoreUnavailableError) || attempt >= RESENDS) throw err
        resent++
      }
    }
  }
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      for (let i = next++; i < count; i = next++) await one(i)
    }),
  )
  if (resent > 0) console.error(`seed: ${resent} of ${count} appends waited past NATS_TIMEOUT_MS for a batch slot and were sent again`)
}

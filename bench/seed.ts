import { randomUUID } from 'node:crypto'
import { Session } from '../src/domain/sessions/session.js'
import { Task, type TaskEvent } from '../src/domain/tasks/task.js'
import { endedTaskDrafts } from '../test/helpers/mothers.js'
import type { AppContext } from '../src/app-context.js'
import { ConcurrencyError, EventStoreUnavailableError } from '../src/infra/nats/event-store.js'

const RESULT = `# Plan\n\n${'A paragraph of the deliverable, as an agent writes it, with headings and lists. '.repeat(18)}\n`
// Each seeded task is one atomic batch (its whole history): more at once than nats-server holds per
// stream (50); the event store bounds and resends its own batches (ADR 0034).
const IN_FLIGHT = 64
const RESENDS = 20

/** A new session of `accountId`, straight in the log. */
export async function seedSession(infra: AppContext, accountId: string, name = 'seeded'): Promise<string> {
  const metadata = { correlationId: randomUUID(), causationId: null, keyId: null }
  const sessionId = randomUUID()
  await infra.events.append(
    Session,
    { accountId, aggregateId: sessionId },
    [{ type: 'SessionCreated', data: { name, companyName: null, companyUrl: null, industry: null, targetAudience: null } }],
    { expectedVersion: 0, metadata, now: new Date() },
  )
  return sessionId
}

/**
 * Stores `count` ended tasks for `accountId` straight in the log (TaskCreated, TaskStarted,
 * TaskCompleted, as a worker leaves them), in one session: history for the store to hold,
 * mostly without running the pipeline that is being measured.
 */
export async function seedTasks(infra: AppContext, accountId: string, count: number): Promise<void> {
  const sessionId = await seedSession(infra, accountId)
  await appendTasks(infra, accountId, count, (i) =>
    endedTaskDrafts(sessionId, `Seeded brief number ${i}: plan the launch posts for the spring collection`, {
      workerId: 'seed',
      completed: { result: RESULT, usage: { provider: 'offline', model: 'seed', inputTokens: 300, outputTokens: 400 }, costMicros: 190 },
    }),
  )
}

/** Appends the histories `draftsOf(0..count-1)`, one new task each, IN_FLIGHT at a time, as clients resend a 503. */
export async function appendTasks(infra: AppContext, accountId: string, count: number, draftsOf: (i: number) => TaskEvent[]): Promise<void> {
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
    Array.from({ length: IN_FLIGHT }, async () => {
      for (let i = next++; i < count; i = next++) await one(i)
    }),
  )
  if (resent > 0) console.error(`seed: ${resent} of ${count} appends waited past NATS_TIMEOUT_MS for a batch slot and were sent again`)
}

export { RESULT as SEEDED_RESULT }

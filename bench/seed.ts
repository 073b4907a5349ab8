import { randomUUID } from 'node:crypto'
import { Session } from '../src/domain/sessions/session.js'
import { Task } from '../src/domain/tasks/task.js'
import { endedTaskDrafts } from '../test/helpers/mothers.js'
import type { AppContext } from '../src/app-context.js'
import { ConcurrencyError } from '../src/infra/nats/event-store.js'

const RESULT = `# Plan\n\n${'A paragraph of the deliverable, as an agent writes it, with headings and lists. '.repeat(18)}\n`
// Each seeded task is one atomic batch (its whole history): nats-server holds at most 50 batches in
// flight per stream (ADR 0026), and past that a commit fails as "atomic publish batch is incomplete".
const IN_FLIGHT = 32

/**
 * Stores `count` ended tasks for `accountId` straight in the log (TaskCreated, TaskStarted,
 * TaskCompleted, as a worker leaves them), in one session: history for the store to hold,
 * mostly without running the pipeline that is being measured.
 */
export async function seedTasks(infra: AppContext, accountId: string, count: number): Promise<void> {
  const metadata = { correlationId: randomUUID(), causationId: null, keyId: null }
  const sessionId = randomUUID()
  await infra.events.append(
    Session,
    { accountId, aggregateId: sessionId },
    [{ type: 'SessionCreated', data: { name: 'seeded', companyName: null, companyUrl: null, industry: null, targetAudience: null } }],
    { expectedVersion: 0, metadata, now: new Date() },
  )
  let next = 0
  const one = async (i: number) => {
    const instruction = `Seeded brief number ${i}: plan the launch posts for the spring collection`
    const drafts = endedTaskDrafts(sessionId, instruction, {
      workerId: 'seed',
      completed: { result: RESULT, usage: { provider: 'offline', model: 'seed', inputTokens: 300, outputTokens: 400 }, costMicros: 190 },
    })
    // A worker may claim the task between its TaskCreated and TaskStarted: it then runs it.
    await infra.events.append(Task, { accountId, aggregateId: randomUUID() }, drafts, { expectedVersion: 0, metadata, now: new Date() }).catch((err: unknown) => {
      if (!(err instanceof ConcurrencyError)) throw err
    })
  }
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      for (let i = next++; i < count; i = next++) await one(i)
    }),
  )
}

import { randomUUID } from 'node:crypto'
import { Session } from '../src/domain/sessions/session.js'
import { endedTaskDrafts } from '../test/helpers/mothers.js'
import type { AppContext } from '../src/app-context.js'
import { appendTasks } from '../test/helpers/task-mix.js'

const RESULT = `# Plan\n\n${'A paragraph of the deliverable, as an agent writes it, with headings and lists. '.repeat(18)}\n`

/** A new session of `accountId`, straight in the log. */
export async function seedSession(infra: AppContext, accountId: string, name = 'seeded'): Promise<string> {
  const metadata = { correlationId: randomUUID(), causationId: null, keyId: null }
  const sessionId = randomUUID()
  await infra.events.append(Session, { accountId, aggregateId: sessionId }, [{ type: 'SessionCreated', data: { name, companyName: null, companyUrl: null, industry: null, targetAudience: null } }], {
    expectedVersion: 0,
    metadata,
    now: new Date(),
  })
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

export { appendTasks }

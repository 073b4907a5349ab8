/**
 * The object mother of the parts: one no-op task as the bench's burst stores it, its three
 * events encoded as the event store encodes them (TaskCompleted carries the offline agent's
 * deliverable for the bench's brief, about 5 KB).
 */
import { randomUUID } from 'node:crypto'
import { buildDeliverable } from '../../consumers/agents/offline/deliverable.js'
import { OFFLINE_MODEL } from '../../consumers/agents/offline/offline-provider.js'
import { AGENTS } from '../../src/domain/agents/catalogue.js'
import { decideCreateTask, decideFinishTask, decideStartTask, Task, type TaskEvent, type TaskState } from '../../src/domain/tasks/task.js'
import type { StoredMessage } from '../../src/infra/nats/decode.js'
import { toEnvelope } from '../../src/infra/nats/envelope.js'

/** The brief every no-op task of the bench's burst carries (overhead.ts numbers them). */
export const BURST_BRIEF = 'Overhead brief r1-7: plan the launch posts'
const AGENT = AGENTS.find((agent) => agent.type === 'growth-marketer')
const SESSION = { name: 'Bench', companyName: 'Acme', companyUrl: null, industry: null, targetAudience: null, autonomy: 'approval-required' as const, facts: [] }

/** The offline agent's deliverable for a brief, as the worker builds it. */
export function deliverableFor(instruction: string): string {
  if (!AGENT) throw new Error('the catalogue has no growth-marketer')
  return buildDeliverable({ task: { id: randomUUID(), agentType: AGENT.type, instruction, title: null }, agent: AGENT, session: SESSION })
}

/** TaskCreated, TaskStarted and TaskCompleted of one no-op task, as stored messages. */
export function aNoOpTasksEvents(): StoredMessage[] {
  const key = { accountId: randomUUID(), aggregateId: randomUUID() }
  const metadata = { correlationId: randomUUID(), causationId: null, keyId: randomUUID() }
  const drafts: TaskEvent[] = []
  let state: TaskState = Task.initialState
  const record = (events: TaskEvent[]) => {
    for (const event of events) {
      drafts.push(event)
      state = Task.evolve(state, event)
    }
  }
  record(
    decideCreateTask(
      {
        sessionId: randomUUID(),
        agentType: 'growth-marketer',
        taskType: 'instruction',
        instruction: BURST_BRIEF,
        title: null,
        priority: 'normal',
        fingerprint: 'f'.repeat(64),
        identityRevision: 7,
        parentTaskId: null,
        billingMonth: '2026-11',
        reservedMicros: 500_000,
      },
      state,
    ),
  )
  record(decideStartTask({ workerId: randomUUID() }, state))
  const usage = { provider: 'offline', model: OFFLINE_MODEL, inputTokens: 120, outputTokens: 900 }
  record(decideFinishTask({ outcome: 'completed', result: deliverableFor(BURST_BRIEF), usage, costMicros: 0, learnedFacts: [] }, state))
  return drafts.map((draft, i) => {
    const { subject, envelope } = toEnvelope(Task, key, draft, { metadata, now: new Date() })
    return { subject, seq: i + 1, data: new TextEncoder().encode(JSON.stringify(envelope)) }
  })
}

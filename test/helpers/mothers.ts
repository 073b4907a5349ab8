import { randomUUID } from 'node:crypto'
import { createAccount, type AccountCreatedView } from '../../src/commands/create-account/create-account.js'
import { createApiKey, type CreatedApiKey } from '../../src/commands/create-api-key/create-api-key.js'
import { operator } from '../../src/commands/execute.js'
import type { AppContext } from '../../src/app-context.js'
import { taskFingerprint } from '../../src/domain/tasks/identity.js'
import type { RecordedEvent } from '../../src/domain/message.js'
import type { ScheduleSpec } from '../../src/domain/schedules/schedule.js'
import type { TaskCompleted, TaskEvent } from '../../src/domain/tasks/task.js'
import { ApiClient } from './http.js'

/** Object mothers: the fixtures tests need, made through the real commands. */
export function anAccount(infra: AppContext, overrides: { name?: string; monthlyBudgetUsd?: number } = {}): Promise<AccountCreatedView> {
  return createAccount(infra, { name: overrides.name ?? `Account ${randomUUID().slice(0, 8)}`, monthlyBudgetUsd: overrides.monthlyBudgetUsd }, operator())
}

export function aKey(infra: AppContext, accountId: string, overrides: { name?: string; expiresAt?: Date } = {}): Promise<CreatedApiKey> {
  return createApiKey(infra, { accountId, name: overrides.name ?? 'test key', expiresAt: overrides.expiresAt ?? null }, operator())
}

export interface Caller {
  readonly account: AccountCreatedView
  readonly key: CreatedApiKey
  readonly api: ApiClient
}

/** An account with a key, and a client that sends it. */
export async function aCaller(infra: AppContext, baseUrl: string, overrides: { monthlyBudgetUsd?: number } = {}): Promise<Caller> {
  const account = await anAccount(infra, overrides)
  const key = await aKey(infra, account.id)
  return { account, key, api: new ApiClient(baseUrl, key.key) }
}

export const aSessionBody = (overrides: Record<string, unknown> = {}) => ({
  name: 'Spring launch',
  companyName: 'Acme Rockets',
  companyUrl: 'https://acme.example',
  industry: 'Aerospace',
  targetAudience: 'Hobbyist rocketeers in North America',
  ...overrides,
})

/**
 * A task's whole history, as a worker leaves it (TaskCreated, TaskStarted, TaskCompleted), to
 * append straight to the log: stored history for benchmarks, odd histories for tests.
 */
export function endedTaskDrafts(sessionId: string, instruction: string, ended: { workerId?: string; completed?: Partial<TaskCompleted['data']> } = {}): TaskEvent[] {
  const created = taskCreatedData(sessionId, instruction)
  const billing = { billingMonth: created.billingMonth, reservedMicros: created.reservedMicros }
  const completed = { result: 'done', usage: { provider: 'offline', model: 'offline', inputTokens: 1, outputTokens: 1 }, costMicros: 1, learnedFacts: [], ...billing, ...ended.completed }
  return [
    { type: 'TaskCreated', data: created },
    { type: 'TaskStarted', data: { workerId: ended.workerId ?? 'elsewhere' } },
    { type: 'TaskCompleted', data: completed },
  ]
}

/** A TaskCreated's data for a brief to the SEO agent, as the API stores it. */
export function taskCreatedData(sessionId: string, instruction: string, reservedMicros = 10_000) {
  return {
    sessionId,
    agentType: 'seo',
    taskType: 'instruction',
    instruction,
    title: null,
    priority: 'normal',
    fingerprint: taskFingerprint(sessionId, 'seo', instruction),
    parentTaskId: null,
    billingMonth: new Date().toISOString().slice(0, 7),
    reservedMicros,
  } as const
}

/** A recorded TaskCreated of an account at a log sequence, as a reader of the log returns it (its data left out). */
export function aRecordedTaskCreated(accountId: string, seq: number): RecordedEvent {
  const taskId = randomUUID()
  return {
    type: 'TaskCreated',
    data: {},
    id: randomUUID(),
    version: 1,
    occurredAt: new Date().toISOString(),
    accountId,
    aggregateId: taskId,
    metadata: { correlationId: randomUUID(), causationId: null, keyId: null },
    seq,
    subject: `mats.task.${accountId}.${taskId}.TaskCreated`,
  }
}

/** What a schedule creates and when: an interval of a minute, overlap skip, unless `overrides` say otherwise. */
export const aScheduleSpec = (overrides: Partial<ScheduleSpec> = {}): ScheduleSpec => ({
  sessionId: '00000000-0000-4000-8000-000000000001',
  agentType: 'seo',
  instruction: 'Audit the blog',
  title: null,
  priority: 'normal',
  cron: null,
  every: '1m',
  timezone: 'UTC',
  overlap: 'skip',
  catchupWindow: '1m',
  ...overrides,
})

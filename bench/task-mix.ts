import { AGENT_TYPES } from '../src/domain/agents/catalogue.js'
import { taskFingerprint } from '../src/domain/tasks/identity.js'
import { PRIORITIES, type TaskEvent, type TaskStatus } from '../src/domain/tasks/task.js'
import { SEEDED_RESULT } from './seed.js'

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
  const created = { sessionId, agentType, taskType: 'instruction', instruction, title: null, priority, fingerprint: taskFingerprint(sessionId, agentType, instruction), parentTaskId: null, ...billing } as const
  const drafts: TaskEvent[] = [{ type: 'TaskCreated', data: created }]
  if (status === 'pending') return drafts
  drafts.push({ type: 'TaskStarted', data: { workerId: 'seed' } })
  if (status === 'completed') drafts.push({ type: 'TaskCompleted', data: { result: SEEDED_RESULT, usage, costMicros: 190, learnedFacts: [], agentType, ...billing } })
  if (status === 'failed') drafts.push({ type: 'TaskFailed', data: { error: 'the agent gave up', reason: 'agent_error', usage, costMicros: 90, agentType, ...billing } })
  return drafts
}

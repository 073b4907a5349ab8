import { createTaskBatch } from '../api/task-batch.js'
import type { BatchResult } from '../contract/task-batch.js'
import { CreateTaskBatchBody, CreateTaskBatchEnvelope, CreateTaskBatchResponse } from '../contract/task-batch.js'
import { defineTool, issuerOf } from './tool.js'

/** POST /v1/tasks/batch as a tool: the same code, the same per-body rate limit, one result per body in order. */
export const runAgentTasksBatchTool = defineTool({
  name: 'run_agent_tasks_batch',
  title: 'Run agent tasks (batch)',
  description:
    'Start up to 100 agent tasks in one call, e.g. one brief for each of an agency’s client sessions. Each item takes the arguments of ' +
    'run_agent_task and is created or refused on its own, in the order given: a bad item never fails the others. Returns { results }, one per ' +
    'item in order: { status: 201, task } when created, else { status, code, error } (400 invalid, naming tasks[i].field; 402 budget spent; ' +
    '404 session not found; 409 an identical task pending, existingTaskId naming it; 429 over the rate limit, retryAfter seconds). ' +
    'Each item counts against the tasks.create rate limit; with none admitted the call is an error. With waitSeconds on some items, ' +
    'the call returns when the longest wait is over. Poll get_task for tasks not finished yet.',
  limitGroup: 'tasks.create',
  limitsEachItem: true,
  // Only the envelope is checked up front: each item is checked on its own, so that a bad one is refused alone (src/api/task-batch.ts).
  input: CreateTaskBatchEnvelope,
  listedInput: CreateTaskBatchBody,
  output: CreateTaskBatchResponse,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async run(ctx, { tasks }) {
    const { accountId } = ctx.principal
    const admissions = await ctx.limiter.checkEach('tasks.create', accountId, tasks.length)
    const [first] = admissions
    // Not one item admitted: refused whole, as POST /v1/tasks/batch is (a tool error with the limit's message).
    if (first && admissions.every((admission) => admission !== null)) throw first
    const items = tasks.map((body, index) => ({ body, refusedByLimit: admissions[index] ?? null }))
    const answer = await createTaskBatch(ctx.infra, accountId, items, issuerOf(ctx))
    return { structured: answer, text: batchText(answer.results) }
  },
})

/** One line per item, in order: what a model needs to follow up on each. */
export function batchText(results: readonly BatchResult[]): string {
  const created = results.filter((result) => result.status === 201).length
  const lines = results.map((result, i) => {
    if ('task' in result) return `${i}. created task ${result.task.id} (${result.task.status}, agent ${result.task.agentType}, session ${result.task.sessionId})`
    const more = result.existingTaskId ? ` (pending task ${result.existingTaskId})` : result.retryAfter ? ` (retry in ${result.retryAfter} s)` : ''
    return `${i}. not created: ${result.status} ${result.code}: ${result.error}${more}`
  })
  return [`${created} of ${results.length} tasks created:`, ...lines, created > 0 ? 'Poll get_task with each created task id until it is completed or failed.' : ''].filter(Boolean).join('\n')
}

import { rerunAgentTask } from '../api/tasks.js'
import { TaskParams, TaskResponse } from '../contract/tasks.js'
import { taskText } from './render.js'
import { defineTool, issuerOf } from './tool.js'

/** POST /v1/tasks/{taskId}/rerun as a tool. */
export const rerunTaskTool = defineTool({
  name: 'rerun_task',
  title: 'Re-run task',
  description:
    'Run a task again: a new task with the same session, agent, instruction and priority, e.g. after it failed or was cancelled, ' +
    'or to get a fresh take on a completed one. The new task has rerunOf set to the original, and get_task on the original lists it in reruns. ' +
    'Errors: task not found, an identical task already pending (the original itself when it is still pending, or an earlier re-run), ' +
    'monthly budget exhausted, rate limited. Returns { task } (pending); poll get_task until it is completed or failed.',
  limitGroup: 'tasks.create',
  input: TaskParams,
  output: TaskResponse,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async run(ctx, { taskId }) {
    const created = await rerunAgentTask(ctx.infra, ctx.principal.accountId, taskId, issuerOf(ctx))
    return { structured: created, text: taskText(created.task) }
  },
})

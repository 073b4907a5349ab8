import { Type } from 'typebox'
import { decideActionOf, listPendingApprovals } from '../api/actions.js'
import { createSessionFromBody, getSession as getSessionView, listSessionsPage, updateSession } from '../api/sessions.js'
import { cancelTaskAndWait, getTask as getTaskView, listTasksPage, runAgentTask } from '../api/tasks.js'
import { AGENTS } from '../domain/agents/catalogue.js'
import { ActionResponse, DecideActionInput, PendingApprovalsQuery, PendingApprovalsResponse } from '../contract/actions.js'
import { ListAgentsResponse } from '../contract/agents.js'
import { CreateSessionBody, ListSessionsQuery, ListSessionsResponse, SessionParams, SessionResponse, UpdateSessionInput } from '../contract/sessions.js'
import { CreateTaskBody, ListTasksQuery, ListTasksResponse, TaskParams, TaskResponse } from '../contract/tasks.js'
import { reportTaskProgress } from './progress.js'
import { rerunTaskTool } from './rerun-tool.js'
import { runAgentTasksBatchTool } from './batch-tool.js'
import { createScheduleTool, deleteScheduleTool, listSchedulesTool, pauseScheduleTool } from './schedule-tools.js'
import { actionText, pendingApprovalsText } from './render-actions.js'
import { agentsText, sessionDetailsText, sessionText, sessionsText, taskText, tasksText } from './render.js'
import { defineTool, issuerOf, type Tool } from './tool.js'

/**
 * The MCP tools. Each is its REST operation (same schemas, same code, same rate-limit
 * group, same account scoping); only the envelope differs.
 */
const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }

const listAgents = defineTool({
  name: 'list_agents',
  title: 'List agents',
  description:
    'List the 10 marketing agents: type, name, description, whether it is the supervisor, and sub-specialties. ' +
    'Call it to choose the agentType for run_agent_task. growth-marketer is the supervisor and delegates to the specialists; ' +
    'when unsure, use it. Returns { agents }.',
  limitGroup: 'meta',
  input: Type.Object({}, { additionalProperties: false }),
  output: ListAgentsResponse,
  annotations: READ_ONLY,
  async run() {
    return { structured: { agents: AGENTS }, text: agentsText(AGENTS) }
  },
})

const listSessionsTool = defineTool({
  name: 'list_sessions',
  title: 'List sessions',
  description:
    "List the caller's sessions (workspaces, usually one per company), newest first, 25 per page by default. " +
    'Call it before create_session: reusing a session is preferred, as it holds learned company context and platform connections. ' +
    'Returns { sessions, pagination }.',
  limitGroup: 'sessions',
  input: ListSessionsQuery,
  output: ListSessionsResponse,
  annotations: READ_ONLY,
  async run(ctx, query) {
    const page = await listSessionsPage(ctx.infra, ctx.principal.accountId, query)
    return { structured: page, text: sessionsText(page.sessions, page.pagination) }
  },
})

const getSessionTool = defineTool({
  name: 'get_session',
  title: 'Get session',
  description:
    'Read one session: its name, the company context agents work from (companyName, companyUrl, industry, targetAudience), ' +
    'its autonomy (how far agents may act on live platforms) and how many facts its runs have learned. Returns { session }.',
  limitGroup: 'sessions',
  input: SessionParams,
  output: SessionResponse,
  annotations: READ_ONLY,
  async run(ctx, { sessionId }) {
    const found = await getSessionView(ctx.infra, ctx.principal.accountId, sessionId)
    return { structured: found, text: sessionDetailsText(found.session) }
  },
})

const createSessionTool = defineTool({
  name: 'create_session',
  title: 'Create session',
  description:
    'Create a session (a workspace, usually one per company) when list_sessions shows none for this company. ' +
    'companyName and companyUrl give agents context; no onboarding crawl is started. Returns { session }; pass session.id as sessionId to run_agent_task.',
  limitGroup: 'sessions',
  input: CreateSessionBody,
  output: SessionResponse,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(ctx, body) {
    const created = await createSessionFromBody(ctx.infra, ctx.principal.accountId, body, issuerOf(ctx))
    return { structured: created, text: sessionText(created.session, true) }
  },
})

const updateSessionTool = defineTool({
  name: 'update_session',
  title: 'Update session',
  description:
    "Change a session's autonomy, how far agents may act on the user's live platforms: draft-only (write actions stay drafts), " +
    "approval-required (they await a person's approval) or autonomous (connected platforms are changed). Only when the user asks for it; " +
    'runs that start afterwards follow the new setting. Errors: session not found. Returns { session }.',
  limitGroup: 'sessions',
  input: UpdateSessionInput,
  output: SessionResponse,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(ctx, { sessionId, autonomy }) {
    const updated = await updateSession(ctx.infra, ctx.principal.accountId, sessionId, { autonomy }, issuerOf(ctx))
    return { structured: updated, text: sessionDetailsText(updated.session) }
  },
})

const runAgentTaskTool = defineTool({
  name: 'run_agent_task',
  title: 'Run agent task',
  description:
    'Start a marketing agent on a plain-English instruction (4 to 4000 characters) in a session. The run happens in the background ' +
    "against the session's connected platforms and typically takes 1 to 5 minutes; write actions respect the user's approval settings, " +
    'so a result can be drafts or a pending approval. Returns { task } at once (pending or running), or set waitSeconds (up to 120) to hold the call ' +
    'until the task ends or that time passes (with progress notifications for clients that ask). If the status is not completed or failed yet, ' +
    'poll get_task every 10 to 30 seconds. ' +
    'Errors: session not found, monthly budget exhausted, an identical task already pending, rate limited. Tasks are never retried automatically.',
  limitGroup: 'tasks.create',
  input: CreateTaskBody,
  output: TaskResponse,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async run(ctx, body) {
    const { infra, principal, correlationId, progress } = ctx
    const waitSeconds = body.waitSeconds ?? 0
    const follower = progress && waitSeconds > 0 ? reportTaskProgress(infra.nc, principal.accountId, correlationId, waitSeconds, progress) : null
    try {
      const created = await runAgentTask(infra, principal.accountId, body, issuerOf(ctx))
      return { structured: created, text: taskText(created.task) }
    } finally {
      follower?.close()
    }
  },
})

const getTask = defineTool({
  name: 'get_task',
  title: 'Get task',
  description:
    "Read one task: its status (pending, running, completed, failed), the agent's result (Markdown) once completed, or the error once failed. " +
    'Poll every 10 to 30 seconds until the status is completed or failed. Returns { task }.',
  limitGroup: 'tasks.read',
  input: TaskParams,
  output: TaskResponse,
  annotations: READ_ONLY,
  async run(ctx, { taskId }) {
    const found = await getTaskView(ctx.infra, ctx.principal.accountId, taskId)
    return { structured: found, text: taskText(found.task) }
  },
})

const listTasksTool = defineTool({
  name: 'list_tasks',
  title: 'List tasks',
  description:
    'List recent tasks, newest first, 25 per page by default, optionally filtered by sessionId, status or agentType. ' +
    'Use it to find earlier work or tasks still running; read a full result with get_task. Returns { tasks, pagination }.',
  limitGroup: 'tasks.read',
  input: ListTasksQuery,
  output: ListTasksResponse,
  annotations: READ_ONLY,
  async run(ctx, query) {
    const page = await listTasksPage(ctx.infra, ctx.principal.accountId, query)
    return { structured: page, text: tasksText(page.tasks, page.pagination) }
  },
})

const cancelTaskTool = defineTool({
  name: 'cancel_task',
  title: 'Cancel task',
  description:
    'Stop a task the user no longer wants: a pending task ends at once, a running one is stopped within a few seconds. ' +
    'It ends failed, its error beginning with "cancelled"; what the run spent until then is still counted, and the tasks a supervisor ' +
    'delegated are cancelled with it. Errors: task not found, task already ended. Returns { task }.',
  limitGroup: 'tasks.create',
  input: TaskParams,
  output: TaskResponse,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async run(ctx, { taskId }) {
    const cancelled = await cancelTaskAndWait(ctx.infra, ctx.principal.accountId, taskId, issuerOf(ctx))
    return { structured: cancelled, text: taskText(cancelled.task) }
  },
})

const listPendingApprovalsTool = defineTool({
  name: 'list_pending_approvals',
  title: 'List pending approvals',
  description:
    "List the write actions agents proposed that await the user's approval (a post to publish, a budget to change), newest first, " +
    '25 per page by default: platform, action, a one-sentence summary and the draft content. Show them to the user and pass their answer ' +
    'to decide_action; never approve on your own. Returns { actions, pagination }.',
  limitGroup: 'tasks.read',
  input: PendingApprovalsQuery,
  output: PendingApprovalsResponse,
  annotations: READ_ONLY,
  async run(ctx, query) {
    const page = await listPendingApprovals(ctx.infra, ctx.principal.accountId, query)
    return { structured: page, text: pendingApprovalsText(page.actions, page.pagination) }
  },
})

const decideActionTool = defineTool({
  name: 'decide_action',
  title: 'Approve or reject an action',
  description:
    'Record the user\'s decision on an action from list_pending_approvals: decision "approve" or "reject", with an optional reason. ' +
    "An approved action is carried out by the platform's connector where this deployment has one, and otherwise stays approved for the " +
    "user's own integration; a rejected one changes nothing. Errors: action not found, action not awaiting approval (already decided, " +
    'or a draft). Returns { action }.',
  limitGroup: 'tasks.create',
  input: DecideActionInput,
  output: ActionResponse,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  async run(ctx, { actionId, decision, reason }) {
    const decided = await decideActionOf(ctx.infra, ctx.principal.accountId, actionId, decision, reason, issuerOf(ctx))
    return { structured: decided, text: actionText(decided.action) }
  },
})

export const TOOLS: readonly Tool[] = [
  listAgents,
  listSessionsTool,
  getSessionTool,
  createSessionTool,
  updateSessionTool,
  runAgentTaskTool,
  runAgentTasksBatchTool,
  getTask,
  listTasksTool,
  cancelTaskTool,
  rerunTaskTool,
  listPendingApprovalsTool,
  decideActionTool,
  createScheduleTool,
  listSchedulesTool,
  pauseScheduleTool,
  deleteScheduleTool,
]

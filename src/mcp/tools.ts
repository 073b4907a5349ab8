import { Type } from 'typebox'
import { listSessions } from '../../projections/queries/sessions.js'
import { listTasks } from '../../projections/queries/tasks.js'
import { createSession } from '../commands/create-session/create-session.js'
import { AGENTS } from '../domain/agents/catalogue.js'
import { NotFoundError } from '../domain/errors.js'
import { sessionView } from '../http/routes/sessions.js'
import { requireSession, runAgentTask, taskView } from '../http/routes/tasks.js'
import { ListAgentsResponse } from '../http/schemas/agents.js'
import { pageOf, paginationFor } from '../http/schemas/common.js'
import { CreateSessionBody, ListSessionsQuery, ListSessionsResponse, SessionResponse } from '../http/schemas/sessions.js'
import { CreateTaskBody, ListTasksQuery, ListTasksResponse, TaskParams, TaskResponse } from '../http/schemas/tasks.js'
import { readTask } from '../queries/read-task.js'
import { reportTaskProgress } from './progress.js'
import { agentsText, sessionText, sessionsText, taskText, tasksText } from './render.js'
import { defineTool, type Tool } from './tool.js'

/**
 * The six MCP tools. Each is its REST operation (same schemas, same code, same rate-limit
 * group, same account scoping); only the envelope differs.
 */
const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }

const listAgents = defineTool({
  name: 'list_agents',
  title: 'List agents',
  description: 'List the 10 marketing agents: type, name, description, whether it is the supervisor, and sub-specialties. '
    + 'Call it to choose the agentType for run_agent_task. growth-marketer is the supervisor and delegates to the specialists; '
    + 'when unsure, use it. Returns { agents }.',
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
  description: "List the caller's sessions (workspaces, usually one per company), newest first, 25 per page by default. "
    + 'Call it before create_session: reusing a session is preferred, as it holds learned company context and platform connections. '
    + 'Returns { sessions, pagination }.',
  limitGroup: 'sessions',
  input: ListSessionsQuery,
  output: ListSessionsResponse,
  annotations: READ_ONLY,
  async run(ctx, query) {
    const { page, limit } = pageOf(query)
    const { items, total } = await listSessions(ctx.infra.readModels, ctx.principal.accountId, page, limit)
    const sessions = items.map(sessionView)
    const pagination = paginationFor(page, limit, total)
    return { structured: { sessions, pagination }, text: sessionsText(sessions, pagination) }
  },
})

const createSessionTool = defineTool({
  name: 'create_session',
  title: 'Create session',
  description: 'Create a session (a workspace, usually one per company) when list_sessions shows none for this company. '
    + 'companyName and companyUrl give agents context; no onboarding crawl is started. Returns { session }; pass session.id as sessionId to run_agent_task.',
  limitGroup: 'sessions',
  input: CreateSessionBody,
  output: SessionResponse,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(ctx, body) {
    const doc = await createSession(ctx.infra, ctx.principal.accountId, {
      name: body.name,
      companyName: body.companyName ?? null,
      companyUrl: body.companyUrl ?? null,
      industry: body.industry ?? null,
      targetAudience: body.targetAudience ?? null,
    }, { correlationId: ctx.correlationId, keyId: ctx.principal.keyId })
    const session = sessionView(doc)
    return { structured: { session }, text: sessionText(session, true) }
  },
})

const runAgentTaskTool = defineTool({
  name: 'run_agent_task',
  title: 'Run agent task',
  description: 'Start a marketing agent on a plain-English instruction (4 to 4000 characters) in a session. The run happens in the background '
    + "against the session's connected platforms and typically takes 1 to 5 minutes; write actions respect the user's approval settings, "
    + 'so a result can be drafts or a pending approval. Returns { task } at once (pending or running), or set waitSeconds (up to 120) to hold the call '
    + 'until the task ends or that time passes (with progress notifications for clients that ask). If the status is not completed or failed yet, '
    + 'poll get_task every 10 to 30 seconds. '
    + 'Errors: session not found, monthly budget exhausted, an identical task already pending, rate limited. Tasks are never retried automatically.',
  limitGroup: 'tasks.create',
  input: CreateTaskBody,
  output: TaskResponse,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async run(ctx, body) {
    const { infra, principal, correlationId, progress } = ctx
    const waitSeconds = body.waitSeconds ?? 0
    const follower = progress && waitSeconds > 0 ? reportTaskProgress(infra.nc, principal.accountId, correlationId, waitSeconds, progress) : null
    try {
      const task = taskView(await runAgentTask(infra, principal, body, correlationId))
      return { structured: { task }, text: taskText(task) }
    } finally {
      follower?.close()
    }
  },
})

const getTask = defineTool({
  name: 'get_task',
  title: 'Get task',
  description: "Read one task: its status (pending, running, completed, failed), the agent's result (Markdown) once completed, or the error once failed. "
    + 'Poll every 10 to 30 seconds until the status is completed or failed. Returns { task }.',
  limitGroup: 'tasks.read',
  input: TaskParams,
  output: TaskResponse,
  annotations: READ_ONLY,
  async run(ctx, { taskId }) {
    const doc = await readTask(ctx.infra, ctx.principal.accountId, taskId)
    if (!doc) throw new NotFoundError('task not found')
    const task = taskView(doc)
    return { structured: { task }, text: taskText(task) }
  },
})

const listTasksTool = defineTool({
  name: 'list_tasks',
  title: 'List tasks',
  description: 'List recent tasks, newest first, 25 per page by default, optionally filtered by sessionId, status or agentType. '
    + 'Use it to find earlier work or tasks still running; read a full result with get_task. Returns { tasks, pagination }.',
  limitGroup: 'tasks.read',
  input: ListTasksQuery,
  output: ListTasksResponse,
  annotations: READ_ONLY,
  async run(ctx, query) {
    const { accountId } = ctx.principal
    const { sessionId, status, agentType } = query
    if (sessionId) await requireSession(ctx.infra, accountId, sessionId)
    const { page, limit } = pageOf(query)
    const { items, total } = await listTasks(ctx.infra.readModels, accountId, { sessionId, status, agentType }, page, limit)
    const tasks = items.map(taskView)
    const pagination = paginationFor(page, limit, total)
    return { structured: { tasks, pagination }, text: tasksText(tasks, pagination) }
  },
})

export const TOOLS: readonly Tool[] = [listAgents, listSessionsTool, createSessionTool, runAgentTaskTool, getTask, listTasksTool]

import { randomUUID } from 'node:crypto'
import { taskCountsProjection, taskDocFromHistory, type TaskCountsDoc, type TaskDoc } from '../../projections/index.js'
import { listTasks } from '../../projections/queries/tasks.js'
import { cancelTask } from '../commands/cancel-task/cancel-task.js'
import { createTask } from '../commands/create-task/create-task.js'
import { rerunTask } from '../commands/rerun-task/rerun-task.js'
import type { Issuer } from '../commands/execute.js'
import { InvalidInputError, NotFoundError } from '../domain/errors.js'
import { Task } from '../domain/tasks/task.js'
import type { AppContext } from '../app-context.js'
import { pageOf, paginationFor } from '../contract/common.js'
import { TASK_TOTAL_BOUND, type CreateTaskBody, type ListTasksQuery } from '../contract/tasks.js'
import { readTask } from '../queries/read-task.js'
import { awaitTaskEnd } from '../queries/await-task-end.js'
import { requireSession } from '../queries/require-session.js'
import { awaitTaskStreamReadModel, awaitTasksReadModel } from '../queries/tasks-caught-up.js'
import { AccountGate } from './account-gate.js'
import { decodeTaskCursor, encodeTaskCursor } from './task-cursor.js'
import { documentOf, taskView } from './views.js'

/** The task operations of the v1 API, shared by REST (POST /v1/tasks...) and MCP (run_agent_task...). */
export async function runAgentTask(infra: AppContext, accountId: string, body: CreateTaskBody, issuer: Issuer, taskId: string = randomUUID(), clientGone?: AbortSignal) {
  const created = await createAgentTask(infra, accountId, body, issuer, taskId)
  return { task: taskView(await awaitWaitSeconds(infra, accountId, created, body.waitSeconds, clientGone)) }
}

/** A task as its log holds it, answered as POST /v1/tasks answers it: for a creation that was stored after its answer (a 503). */
export async function storedTask(infra: AppContext, accountId: string, taskId: string) {
  const { events } = await infra.events.load(Task, { accountId, aggregateId: taskId })
  return { task: taskView(documentOf(taskDocFromHistory(events), 'task')) }
}

/** The task a body creates, as stored: pending. */
export async function createAgentTask(infra: AppContext, accountId: string, body: CreateTaskBody, issuer: Issuer, taskId: string = randomUUID()): Promise<TaskDoc> {
  const { history } = await createTask(
    infra,
    accountId,
    {
      taskId,
      sessionId: body.sessionId,
      agentType: body.agentType ?? 'growth-marketer',
      instruction: body.instruction,
      title: body.title ?? null,
      priority: body.priority ?? 'normal',
    },
    issuer,
  )
  return documentOf(taskDocFromHistory(history), 'task')
}

/** The created task as it stands once it ended, `waitSeconds` passed or the client went (`clientGone`); no wait when 0 or absent. */
export async function awaitWaitSeconds(infra: AppContext, accountId: string, created: TaskDoc, waitSeconds: number | undefined, clientGone?: AbortSignal): Promise<TaskDoc> {
  const waitMs = (waitSeconds ?? 0) * 1000
  return waitMs === 0 ? created : ((await awaitTaskEnd(infra, accountId, created._id, waitMs, clientGone)) ?? created)
}

/** A new task repeating task `taskId` (its session, agent, instruction, title and priority), linked to it both ways. */
export async function rerunAgentTask(infra: AppContext, accountId: string, taskId: string, issuer: Issuer, rerunTaskId: string = randomUUID()) {
  const { history } = await rerunTask(infra, { accountId, taskId, rerunTaskId }, issuer)
  return { task: taskView(documentOf(taskDocFromHistory(history), 'task')) }
}

export async function getTask(infra: AppContext, accountId: string, taskId: string) {
  const doc = await readTask(infra, accountId, taskId)
  if (!doc) throw new NotFoundError('task not found')
  return { task: taskView(doc) }
}

/** Two of an account's lists at a time per API process: a live refresh beside a click; more wait (account-gate.ts). */
const listGate = new AccountGate(2)

export function listTasksPage(infra: AppContext, accountId: string, query: ListTasksQuery) {
  return listGate.run(accountId, () => listTasksPageNow(infra, accountId, query))
}

async function listTasksPageNow(infra: AppContext, accountId: string, query: ListTasksQuery) {
  const { sessionId, scheduleId, status, agentType, priority } = query
  const cursor = query.cursor === undefined ? undefined : decodeTaskCursor(query.cursor)
  if (cursor && (query.page ?? 1) > 1) throw new InvalidInputError('query.page: send either page or cursor, not both')
  // Unfiltered, or by status alone: the total is a stored count, not a count of the matches (which grows with the history).
  const countable = !sessionId && !scheduleId && !agentType && !priority && !query.createdFrom && !query.createdTo
  await Promise.all([sessionId ? requireSession(infra, accountId, sessionId) : undefined, awaitTasksReadModel(infra, accountId)])
  const counts = countable ? await taskCountsOf(infra, accountId) : undefined
  const { limit } = pageOf(query)
  const page = cursor?.page ?? pageOf(query).page
  const filter = { sessionId, scheduleId, status, agentType, priority, createdFrom: instant(query.createdFrom), createdTo: instant(query.createdTo) }
  const found = await listTasks(infra.readModels, accountId, filter, { page, limit, after: cursor?.after, countUpTo: TASK_TOTAL_BOUND }, counts && (status ? counts[status] : counts.total))
  const last = found.items.at(-1)
  const nextCursor = found.more && last ? encodeTaskCursor({ after: { createdAt: last.createdAt, id: last._id }, page: page + 1 }) : null
  return { tasks: found.items.map(taskView), pagination: { ...paginationFor(page, limit, found.total), totalExact: found.exact, nextCursor } }
}

/** How many of the account's tasks are in each status, as of everything the log held when asked (within the catch-up wait). */
export async function taskCountsOf(infra: AppContext, accountId: string) {
  await awaitTaskStreamReadModel(infra, taskCountsProjection, accountId)
  const doc = await infra.readModels.collection<TaskCountsDoc>(taskCountsProjection).findOne({ _id: accountId })
  const { pending = 0, running = 0, completed = 0, failed = 0 } = doc ?? {}
  return { pending, running, completed, failed, total: pending + running + completed + failed }
}

/** A date-time as the read model stores instants (UTC, milliseconds), so that strings compare as times. */
const instant = (value: string | undefined): string | undefined => (value === undefined ? undefined : new Date(value).toISOString())

/** How long a cancel of a running task waits for its worker to record the end. */
const CANCEL_WAIT_MS = 3000

/** Cancels the task; answers it as it stands once ended, or after CANCEL_WAIT_MS (still running: its worker has not answered yet). */
export async function cancelTaskAndWait(infra: AppContext, accountId: string, taskId: string, issuer: Issuer) {
  const outcome = await cancelTask(infra, { accountId, taskId }, issuer)
  if (outcome === 'stopping') await awaitTaskEnd(infra, accountId, taskId, CANCEL_WAIT_MS)
  return getTask(infra, accountId, taskId)
}

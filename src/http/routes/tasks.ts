import { randomUUID } from 'node:crypto'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { listTasks } from '../../../projections/queries/tasks.js'
import type { TaskDoc } from '../../../projections/index.js'
import { createTask } from '../../commands/create-task/create-task.js'
import { NotFoundError } from '../../domain/errors.js'
import { Session } from '../../domain/sessions/session.js'
import type { Infra } from '../../infra/context.js'
import { readTask } from '../../queries/read-task.js'
import { awaitTaskEnd } from '../../queries/watch-task.js'
import { principalOf } from '../plugins/auth.js'
import { errors, pageOf, paginationFor } from '../schemas/common.js'
import { CreateTaskBody, ListTasksQuery, ListTasksResponse, TaskParams, TaskResponse } from '../schemas/tasks.js'

export function taskView(doc: TaskDoc) {
  const { _id, sessionId, agentType, taskType, status, instruction, result, error, createdAt, startedAt, completedAt } = doc
  return { id: _id, sessionId, agentType, taskType, status, instruction, result: status === 'completed' ? result : null, error, createdAt, startedAt, completedAt }
}

/** POST /v1/tasks and the MCP tool `run_agent_task` both go through here. */
export async function runAgentTask(infra: Infra, principal: { accountId: string; keyId: string }, body: CreateTaskBody, correlationId: string): Promise<TaskDoc> {
  const created = await createTask(infra, principal.accountId, {
    taskId: randomUUID(),
    sessionId: body.sessionId,
    agentType: body.agentType ?? 'growth-marketer',
    instruction: body.instruction,
    title: body.title ?? null,
    priority: body.priority ?? 'normal',
  }, { correlationId, keyId: principal.keyId })
  const waitMs = (body.waitSeconds ?? 0) * 1000
  if (waitMs === 0) return created
  return (await awaitTaskEnd(infra, principal.accountId, created._id, waitMs)) ?? created
}

const tasks: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/tasks', {
    onRequest: [app.authenticate, app.rateLimit('tasks.create')],
    schema: {
      summary: 'Create a task: an agent run from a plain-English instruction, queued at once',
      operationId: 'createTask',
      tags: ['tasks'],
      body: CreateTaskBody,
      response: { 201: TaskResponse, ...errors(400, 401, 402, 404, 409, 429) },
    },
  }, async (request, reply) => {
    const doc = await runAgentTask(app.infra, principalOf(request), request.body, request.id)
    return reply.code(201).send({ task: taskView(doc) })
  })

  app.get('/tasks', {
    onRequest: [app.authenticate, app.rateLimit('tasks.read')],
    schema: {
      summary: 'List recent tasks, newest first',
      operationId: 'listTasks',
      tags: ['tasks'],
      querystring: ListTasksQuery,
      response: { 200: ListTasksResponse, ...errors(400, 401, 404, 429) },
    },
  }, async (request) => {
    const { accountId } = principalOf(request)
    const { sessionId, status, agentType } = request.query
    if (sessionId) await requireSession(app.infra, accountId, sessionId)
    const { page, limit } = pageOf(request.query)
    const { items, total } = await listTasks(app.infra.readModels, accountId, { sessionId, status, agentType }, page, limit)
    return { tasks: items.map(taskView), pagination: paginationFor(page, limit, total) }
  })

  app.get('/tasks/:taskId', {
    onRequest: [app.authenticate, app.rateLimit('tasks.read')],
    schema: {
      summary: "One task's status, result and error",
      operationId: 'getTask',
      tags: ['tasks'],
      params: TaskParams,
      response: { 200: TaskResponse, ...errors(400, 401, 404, 429) },
    },
  }, async (request) => {
    const doc = await readTask(app.infra, principalOf(request).accountId, request.params.taskId)
    if (!doc) throw new NotFoundError('task not found')
    return { task: taskView(doc) }
  })
}

export async function requireSession(infra: Infra, accountId: string, sessionId: string): Promise<void> {
  const { state } = await infra.events.load(Session, { accountId, aggregateId: sessionId })
  if (state.status === 'absent') throw new NotFoundError('session not found')
}

export default tasks

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { cancelTaskAndWait, getTask, listTasksPage, runAgentTask } from '../../api/tasks.js'
import { principalOf } from '../plugins/auth.js'
import { API_PREFIX } from '../plugins/openapi.js'
import { errors } from '../../contract/common.js'
import { IdempotencyKeyHeader, replayable } from '../../contract/idempotency.js'
import { CreateTaskBody, ListTasksQuery, ListTasksResponse, TaskParams, TaskResponse } from '../../contract/tasks.js'

const tasks: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/tasks',
    {
      onRequest: [app.authenticate, app.rateLimit('tasks.create')],
      ...app.idempotent,
      schema: {
        summary: 'Create a task: an agent run from a plain-English instruction, queued at once',
        operationId: 'createTask',
        tags: ['tasks'],
        headers: IdempotencyKeyHeader,
        body: CreateTaskBody,
        response: { 201: replayable(TaskResponse), ...errors(400, 401, 402, 404, 409, 422, 429) },
      },
    },
    async (request, reply) => {
      const { accountId, keyId } = principalOf(request)
      const created = await runAgentTask(app.infra, accountId, request.body, { correlationId: request.id, keyId })
      return reply.code(201).header('location', `${API_PREFIX}/tasks/${created.task.id}`).send(created)
    },
  )

  app.get(
    '/tasks',
    {
      onRequest: [app.authenticate, app.rateLimit('tasks.read')],
      schema: {
        summary: 'List recent tasks, newest first',
        operationId: 'listTasks',
        tags: ['tasks'],
        querystring: ListTasksQuery,
        response: { 200: ListTasksResponse, ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => listTasksPage(app.infra, principalOf(request).accountId, request.query),
  )

  app.get(
    '/tasks/:taskId',
    {
      onRequest: [app.authenticate, app.rateLimit('tasks.read')],
      schema: {
        summary: "One task's status, result and error",
        operationId: 'getTask',
        tags: ['tasks'],
        params: TaskParams,
        response: { 200: TaskResponse, ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => getTask(app.infra, principalOf(request).accountId, request.params.taskId),
  )

  app.post(
    '/tasks/:taskId/cancel',
    {
      onRequest: [app.authenticate, app.rateLimit('tasks.create')],
      schema: {
        summary: 'Cancel a task: a pending one ends at once, a running one is stopped within moments; it ends failed, its error beginning with "cancelled"',
        operationId: 'cancelTask',
        tags: ['tasks'],
        params: TaskParams,
        response: { 200: TaskResponse, ...errors(400, 401, 404, 409, 429) },
      },
    },
    async (request) => {
      const { accountId, keyId } = principalOf(request)
      return cancelTaskAndWait(app.infra, accountId, request.params.taskId, { correlationId: request.id, keyId })
    },
  )
}

export default tasks

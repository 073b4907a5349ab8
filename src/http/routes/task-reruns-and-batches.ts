import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifySchemaCompiler } from 'fastify'
import type { TSchema } from 'typebox'
import { createTaskBatch } from '../../api/task-batch.js'
import { rerunAgentTask } from '../../api/tasks.js'
import { errors } from '../../contract/common.js'
import { IdempotencyKeyHeader, replayable } from '../../contract/idempotency.js'
import { CreateTaskBatchBody, CreateTaskBatchEnvelope, CreateTaskBatchResponse } from '../../contract/task-batch.js'
import { TaskParams, TaskResponse } from '../../contract/tasks.js'
import { principalOf } from '../plugins/auth.js'
import { API_PREFIX } from '../plugins/openapi.js'
import { validatorCompiler } from '../validator.js'

/** The batch route checks only the envelope of its body: each task body is checked on its own (src/api/task-batch.ts). */
const envelopeOnly: FastifySchemaCompiler<TSchema> = (route) => validatorCompiler(route.httpPart === 'body' ? { ...route, schema: CreateTaskBatchEnvelope } : route)

/** POST /v1/tasks/{taskId}/rerun and POST /v1/tasks/batch: more ways to create tasks, under the rules of POST /v1/tasks. */
const taskRerunsAndBatches: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/tasks/:taskId/rerun',
    {
      onRequest: [app.authenticate, app.rateLimit('tasks.create')],
      ...app.idempotent,
      schema: {
        summary: 'Re-run a task: a new task with the same session, agent, instruction and priority, linked to it both ways',
        operationId: 'rerunTask',
        tags: ['tasks'],
        headers: IdempotencyKeyHeader,
        params: TaskParams,
        response: { 201: replayable(TaskResponse), ...errors(400, 401, 402, 404, 409, 422, 429) },
      },
    },
    async (request, reply) => {
      const { accountId, keyId } = principalOf(request)
      const created = await rerunAgentTask(app.infra, accountId, request.params.taskId, { correlationId: request.id, keyId })
      return reply.code(201).header('location', `${API_PREFIX}/tasks/${created.task.id}`).send(created)
    },
  )

  app.post(
    '/tasks/batch',
    {
      // The rate limit counts each body, in the handler: a replay from Idempotency-Key spends nothing.
      onRequest: [app.authenticate],
      ...app.idempotent,
      validatorCompiler: envelopeOnly,
      schema: {
        summary: 'Create up to 100 tasks in one call: each body of POST /v1/tasks created or refused on its own, answered in order',
        operationId: 'createTaskBatch',
        tags: ['tasks'],
        headers: IdempotencyKeyHeader,
        body: CreateTaskBatchBody,
        response: { 200: replayable(CreateTaskBatchResponse), ...errors(400, 401, 409, 422, 429) },
      },
    },
    async (request, reply) => {
      const { accountId, keyId } = principalOf(request)
      const bodies = request.body.tasks
      const admissions = await app.limiter.checkEach('tasks.create', accountId, bodies.length, reply)
      const [first] = admissions
      // Not one body admitted: the batch is refused whole, as one POST /v1/tasks would be.
      if (first && admissions.every((admission) => admission !== null)) {
        void reply.header('retry-after', String(first.retryAfterSeconds))
        throw first
      }
      const items = bodies.map((body, index) => ({ body, refusedByLimit: admissions[index] ?? null }))
      return createTaskBatch(app.infra, accountId, items, { correlationId: request.id, keyId })
    },
  )
}

export default taskRerunsAndBatches

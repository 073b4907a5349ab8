import { randomUUID } from 'node:crypto'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifySchemaCompiler } from 'fastify'
import type { TSchema } from 'typebox'
import { answerTaskBatch } from '../../api/task-batch.js'
import { rerunAgentTask, storedTask } from '../../api/tasks.js'
import { answer, errors } from '../../contract/common.js'
import { IdempotencyKeyHeader, replayable } from '../../contract/idempotency.js'
import { CreateTaskBatchBody, CreateTaskBatchEnvelope, CreateTaskBatchResponse } from '../../contract/task-batch.js'
import { TaskParams, TaskResponse } from '../../contract/tasks.js'
import { issuerOf, principalOf } from '../plugins/auth.js'
import { API_PREFIX } from '../plugins/openapi.js'
import { validatorCompiler } from '../validator.js'

/** The batch route checks only the envelope of its body: each task body is checked on its own (src/api/task-batch.ts). */
const envelopeOnly: FastifySchemaCompiler<TSchema> = (route) => validatorCompiler(route.httpPart === 'body' ? { ...route, schema: CreateTaskBatchEnvelope } : route)

/** POST /v1/tasks/{taskId}/rerun and POST /v1/tasks/batch: more ways to create tasks, under the rules of POST /v1/tasks. */
const taskRerunsAndBatches: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/tasks/:taskId/rerun',
    {
      config: { rateLimitGroup: 'tasks.create' },
      ...app.idempotent,
      schema: {
        summary: 'Re-run a task: a new task with the same session, agent, instruction and priority, linked to it both ways',
        operationId: 'rerunTask',
        description:
          "Creates a new task with the session, agent, instruction, title and priority of this one, whatever its status: completed, failed, cancelled or running. The new task carries rerunOf, and this one lists it in reruns, both stored at once. Every rule of POST /v1/tasks applies: an identical brief still pending (this task itself, when it is pending) is a 409 naming it, a spent budget a 402, and it spends one from the tasks.create rate limit. Another account's task is not found. Send Idempotency-Key to make a retry safe; Location names the new task.",
        tags: ['tasks'],
        headers: IdempotencyKeyHeader,
        params: TaskParams,
        response: { 201: answer(replayable(TaskResponse), 'The new task, pending'), ...errors(400, 401, 402, 404, 409, 422, 429) },
      },
    },
    async (request, reply) => {
      const { accountId } = principalOf(request)
      const rerunTaskId = randomUUID()
      try {
        const created = await rerunAgentTask(app.infra, accountId, request.params.taskId, issuerOf(request, reply), rerunTaskId)
        return reply.code(201).header('location', `${API_PREFIX}/tasks/${rerunTaskId}`).send(created)
      } catch (err) {
        // Answered 503, the re-run's batch may be stored later: a retry with the key then gets it (201), as for POST /v1/tasks (ADR 0046).
        app.answerOnceSettled(request, err, async () => ({ status: 201, body: await storedTask(app.infra, accountId, rerunTaskId), location: `${API_PREFIX}/tasks/${rerunTaskId}` }))
        throw err
      }
    },
  )

  app.post(
    '/tasks/batch',
    {
      // The rate limit counts each body, in the handler: a replay from Idempotency-Key spends nothing.
      config: { rateLimitGroup: 'tasks.create', rateLimitPerItem: true },
      ...app.idempotent,
      validatorCompiler: envelopeOnly,
      schema: {
        summary: 'Create up to 100 tasks in one call: each body of POST /v1/tasks created or refused on its own, answered in order',
        operationId: 'createTaskBatch',
        description:
          "Creates up to 100 tasks in one call, e.g. one brief for each of an agency's client sessions. Each body is what POST /v1/tasks takes, and is created or refused exactly as it would be alone, in the order sent: results holds one entry per body, { status: 201, task } or { status, error, code } (400 naming tasks[i].field, 402, 404, 409, 429). A bad body never fails the others. Each body spends one from the tasks.create rate limit; the bodies past the quota are answered 429 (retryAfter), and a batch of which no body is admitted is a 429 as a whole. With waitSeconds on some bodies, the answer comes when the longest wait is over. Send Idempotency-Key to make a retry safe: a retry with the same key and body answers the same results and creates nothing, except that a body answered 503 but stored afterwards (NATS slow to acknowledge it) is then answered 201 with its task.",
        tags: ['tasks'],
        headers: IdempotencyKeyHeader,
        body: CreateTaskBatchBody,
        response: { 200: answer(replayable(CreateTaskBatchResponse), 'One result per body, in the order sent'), ...errors(400, 401, 409, 422, 429) },
      },
    },
    async (request, reply) => {
      const { accountId } = principalOf(request)
      const bodies = request.body.tasks
      const admissions = await app.limiter.checkEach('tasks.create', accountId, bodies.length, reply)
      const [first] = admissions
      // Not one body admitted: the batch is refused whole, as one POST /v1/tasks would be.
      if (first && admissions.every((admission) => admission !== null)) {
        void reply.header('retry-after', String(first.retryAfterSeconds))
        throw first
      }
      const items = bodies.map((body, index) => ({ body, refusedByLimit: admissions[index] ?? null }))
      const batch = await answerTaskBatch(app.infra, accountId, items, issuerOf(request, reply))
      // A body answered 503 may be stored later: the key then holds the results with its task (ADR 0046).
      const { settling } = batch
      if (settling) app.answerOnceAllSettled(request, settling.settled, async () => ({ status: 200, body: { results: await settling.results() } }))
      return { results: batch.results }
    },
  )
}

export default taskRerunsAndBatches

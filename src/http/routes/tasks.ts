import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { randomUUID } from 'node:crypto'
import { cancelTaskAndWait, getTask, listTasksPage, runAgentTask, storedTask, taskCountsOf } from '../../api/tasks.js'
import { issuerOf, principalOf } from '../plugins/auth.js'
import { whileConnected } from '../client-gone.js'
import { API_PREFIX } from '../plugins/openapi.js'
import { answer, errors } from '../../contract/common.js'
import { IdempotencyKeyHeader, replayable } from '../../contract/idempotency.js'
import { CreateTaskBody, ListTasksQuery, ListTasksResponse, TaskCountsResponse, TaskParams, TaskResponse } from '../../contract/tasks.js'

const tasks: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/tasks',
    {
      config: { rateLimitGroup: 'tasks.create' },
      ...app.idempotent,
      schema: {
        summary: 'Create a task: an agent run from a plain-English instruction, queued at once',
        operationId: 'createTask',
        description:
          'Gives one agent a plain-English instruction. The task is stored and answered at once (pending), then runs in the background; it is never retried automatically. With waitSeconds the answer waits until the task ends or that time passes. An identical brief still pending in the session is a 409 naming it; a spent monthly budget a 402. Send Idempotency-Key to make a retry safe; Location names the task.',
        tags: ['tasks'],
        headers: IdempotencyKeyHeader,
        body: CreateTaskBody,
        response: { 201: answer(replayable(TaskResponse), 'The task: pending, or as it ended when waitSeconds was given and it ended in time'), ...errors(400, 401, 402, 404, 409, 422, 429) },
      },
    },
    async (request, reply) => {
      const { accountId } = principalOf(request)
      const taskId = randomUUID()
      // A client that goes away while its waitSeconds is held ends the wait: its place in the live events and its timer go with it.
      const connected = whileConnected(request, reply)
      try {
        const created = await runAgentTask(app.infra, accountId, request.body, issuerOf(request, reply), taskId, connected.gone)
        return reply.code(201).header('location', `${API_PREFIX}/tasks/${taskId}`).send(created)
      } catch (err) {
        // Answered 503, the task may be stored later: a retry with the key then gets it (201), not a 409.
        app.answerOnceSettled(request, err, async () => ({ status: 201, body: await storedTask(app.infra, accountId, taskId), location: `${API_PREFIX}/tasks/${taskId}` }))
        throw err
      } finally {
        connected.release()
      }
    },
  )

  app.get(
    '/tasks',
    {
      config: { rateLimitGroup: 'tasks.read' },
      schema: {
        summary: 'List recent tasks, newest first',
        operationId: 'listTasks',
        description:
          'The caller\'s tasks, newest first, a page at a time, optionally narrowed by session, status, agent, priority and a creation window (createdFrom inclusive, createdTo exclusive); the filters combine. A task created just before is always in it. Follow `pagination.nextCursor` (as `cursor`) for the next page: it costs the same at any depth, where `page` skips what the pages before hold. Unfiltered or by status alone, `total` is a stored count (GET /v1/tasks/counts); with other filters the matches are counted up to 1,000 and past that `total` is 1,000 with `totalExact` false ("1,000+"), so a page costs the same at any history.',
        tags: ['tasks'],
        querystring: ListTasksQuery,
        response: { 200: answer(ListTasksResponse, 'A page of tasks and where it is in the whole list'), ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => listTasksPage(app.infra, principalOf(request).accountId, request.query),
  )

  app.get(
    '/tasks/counts',
    {
      config: { rateLimitGroup: 'tasks.read' },
      schema: {
        summary: "How many of the caller's tasks are in each status",
        operationId: 'countTasks',
        description:
          "How many of the caller's tasks are pending, running, completed and failed, and all of them: counts kept by the projector as tasks move (one small document per account), so the answer costs the same at any history. A task created or ended just before is counted (the answer waits up to 2 s for the projector to reach what the log held when asked).",
        tags: ['tasks'],
        response: { 200: answer(TaskCountsResponse, 'The counts by status'), ...errors(401, 429) },
      },
    },
    async (request) => ({ counts: await taskCountsOf(app.infra, principalOf(request).accountId) }),
  )

  app.get(
    '/tasks/:taskId',
    {
      config: { rateLimitGroup: 'tasks.read' },
      schema: {
        summary: "One task's status, result and error",
        operationId: 'getTask',
        description: "One task as its events leave it: status, the agent's result once completed, the error once failed. Another account's task is not found.",
        tags: ['tasks'],
        params: TaskParams,
        response: { 200: answer(TaskResponse, 'The task'), ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => getTask(app.infra, principalOf(request).accountId, request.params.taskId),
  )

  app.post(
    '/tasks/:taskId/cancel',
    {
      config: { rateLimitGroup: 'tasks.create' },
      schema: {
        summary: 'Cancel a task: a pending one ends at once, a running one is stopped within moments; it ends failed, its error beginning with "cancelled"',
        operationId: 'cancelTask',
        description:
          'Stops a task. A pending one ends at once; a running one is aborted on the worker that runs it, within moments, and what it spent is recorded. Either way it ends failed, its error beginning with "cancelled"; delegated tasks of a supervisor end with it. A task that has already ended is a 409.',
        tags: ['tasks'],
        params: TaskParams,
        response: { 200: answer(TaskResponse, 'The task as it stands: failed, or still running if its worker has not answered within 3 s'), ...errors(400, 401, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      const { accountId } = principalOf(request)
      return cancelTaskAndWait(app.infra, accountId, request.params.taskId, issuerOf(request, reply))
    },
  )
}

export default tasks

import { Type, type Static } from 'typebox'
import { ERROR_CODES, type ErrorCode } from './errors.js'
import { CreateTaskBody, Task } from './tasks.js'

/** The most bodies one POST /v1/tasks/batch may carry. */
export const MAX_BATCH_TASKS = 100

const tasksDescription = `1 to ${MAX_BATCH_TASKS} bodies of POST /v1/tasks, each created (or refused) on its own, in order`

/**
 * The batch as documented: each item a CreateTaskBody. Typed `unknown` for the handler:
 * the route checks only the envelope (CreateTaskBatchEnvelope), the handler each body.
 */
export const CreateTaskBatchBody = Type.Object(
  { tasks: Type.Array(Type.Unsafe<unknown>(CreateTaskBody), { minItems: 1, maxItems: MAX_BATCH_TASKS, description: tasksDescription }) },
  { title: 'CreateTaskBatchBody', additionalProperties: false },
)

/**
 * The batch as the route checks it before the handler: only its envelope. Each body is
 * checked on its own (against CreateTaskBody) so that a bad one is refused alone, with a
 * 400 naming `tasks[i].field`, and the others are created.
 */
export const CreateTaskBatchEnvelope = Type.Object({ tasks: Type.Array(Type.Unknown(), { minItems: 1, maxItems: MAX_BATCH_TASKS, description: tasksDescription }) }, { additionalProperties: false })
export type CreateTaskBatchEnvelope = Static<typeof CreateTaskBatchEnvelope>

/** The statuses one body of a batch can be refused with. */
export const BATCH_REFUSALS = [400, 402, 404, 409, 429, 500, 503] as const
type Refusal = (typeof BATCH_REFUSALS)[number]
const refusalCodes = [...new Set(BATCH_REFUSALS.flatMap((status: Refusal) => [...ERROR_CODES[status]]))]

export const BatchTaskCreated = Type.Object({ status: Type.Literal(201), task: Task }, { title: 'BatchTaskCreated', description: 'This body was created: the task, as POST /v1/tasks answers it' })

export const BatchTaskRefused = Type.Object(
  {
    status: Type.Enum([...BATCH_REFUSALS], {
      description:
        '400: this body is invalid (error names tasks[i].field); 402: budget spent; 404: session not found; 409: an identical brief is pending (existingTaskId names it, also when it is an earlier body of this batch); 429: over the tasks.create rate limit (retry this body later); 503: NATS out of reach or too slow (with Idempotency-Key, a retry of the batch answers it 201 if it was stored after all); 500: a bug',
    }),
    error: Type.String({ description: 'What went wrong, for people; a validation error names the field first (`tasks[3].instruction: …`)' }),
    code: Type.Enum(refusalCodes, { description: 'The code a POST /v1/tasks of this body alone would have answered' }),
    existingTaskId: Type.Optional(Type.String({ format: 'uuid', description: 'With identical_task_pending: the pending task' })),
    retryAfter: Type.Optional(Type.Integer({ minimum: 1, description: 'With 429: seconds until one more task would be admitted' })),
  },
  { title: 'BatchTaskRefused', description: 'This body was not created; the others are unaffected' },
)

export const CreateTaskBatchResponse = Type.Object(
  { results: Type.Array(Type.Union([BatchTaskCreated, BatchTaskRefused]), { description: 'One per body, in the order sent' }) },
  { title: 'CreateTaskBatchResponse' },
)
/** One body's outcome; `code` typed as every code, the schema narrows it to those of the refusal statuses. */
export type BatchResult = Static<typeof BatchTaskCreated> | (Omit<Static<typeof BatchTaskRefused>, 'code'> & { readonly code: ErrorCode })

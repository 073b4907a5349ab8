import type { FastifySchemaValidationError } from 'fastify'
import { Compile } from 'typebox/compile'
import type { TaskDoc } from '../../projections/index.js'
import type { AppContext } from '../app-context.js'
import type { Issuer } from '../commands/execute.js'
import { errorBody, statusOfDomainError } from '../contract/errors.js'
import type { BatchResult } from '../contract/task-batch.js'
import { CreateTaskBody } from '../contract/tasks.js'
import { describeValidation } from '../contract/validation-messages.js'
import { DomainError, type RateLimitedError } from '../domain/errors.js'
import { isDependencyUnavailable } from '../infra/unavailable.js'
import { awaitWaitSeconds, createAgentTask } from './tasks.js'
import { taskView } from './views.js'

const checkBody = Compile(CreateTaskBody)

/** A body of the batch, with what the rate limit said of it (null: admitted). */
export interface BatchItem {
  readonly body: unknown
  readonly refusedByLimit: RateLimitedError | null
}

type Outcome = { readonly created: TaskDoc; readonly waitSeconds: number | undefined } | { readonly refused: BatchResult }

/**
 * POST /v1/tasks/batch: each body is created or refused exactly as a POST /v1/tasks of it
 * alone would be, one after the other in the order sent, so that outcomes are the same on
 * every run (an identical brief twice: the second is the 409; a budget that holds three
 * more tasks: the first three). Then the waits the bodies asked for (waitSeconds) run
 * together: the answer comes when the longest is over, not after their sum.
 */
export async function createTaskBatch(infra: AppContext, accountId: string, items: readonly BatchItem[], issuer: Issuer): Promise<{ results: BatchResult[] }> {
  const outcomes: Outcome[] = []
  for (const [index, item] of items.entries()) outcomes.push(await createOne(infra, accountId, index, item, issuer))
  const results = await Promise.all(
    outcomes.map(async (outcome): Promise<BatchResult> => {
      if ('refused' in outcome) return outcome.refused
      return { status: 201, task: taskView(await awaitWaitSeconds(infra, accountId, outcome.created, outcome.waitSeconds)) }
    }),
  )
  return { results }
}

async function createOne(infra: AppContext, accountId: string, index: number, { body, refusedByLimit }: BatchItem, issuer: Issuer): Promise<Outcome> {
  if (refusedByLimit) return { refused: { status: 429, ...errorBody('rate_limited', refusedByLimit.message), retryAfter: refusedByLimit.retryAfterSeconds } }
  if (!checkBody.Check(body)) {
    const errors = checkBody.Errors(body) as unknown as FastifySchemaValidationError[]
    return { refused: { status: 400, ...errorBody('invalid_request', describeValidation(errors, `tasks[${index}]`)) } }
  }
  try {
    return { created: await createAgentTask(infra, accountId, body, issuer), waitSeconds: body.waitSeconds }
  } catch (err) {
    return { refused: refusalOf(err, infra, index) }
  }
}

/** What REST would answer for this body alone (src/http/plugins/errors.ts). */
function refusalOf(err: unknown, infra: AppContext, index: number): BatchResult {
  const status = err instanceof DomainError ? statusOfDomainError(err) : null
  if (err instanceof DomainError && (status === 400 || status === 402 || status === 404 || status === 409)) {
    return { status, ...errorBody(err.code, err.message, err.details) }
  }
  if (isDependencyUnavailable(err)) return { status: 503, ...errorBody('unavailable', 'service temporarily unavailable, retry later') }
  infra.log.error({ err, index }, 'unhandled error in a batch body')
  return { status: 500, ...errorBody('internal_error', 'internal error') }
}

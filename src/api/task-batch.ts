import { randomUUID } from 'node:crypto'
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
import { AppendInDoubtError, type AppendSettlement } from '../infra/nats/event-store.js'
import { awaitWaitSeconds, createAgentTask, storedTask } from './tasks.js'
import { taskView } from './views.js'

const checkBody = Compile(CreateTaskBody)

/** A body of the batch, with what the rate limit said of it (null: admitted). */
export interface BatchItem {
  readonly body: unknown
  readonly refusedByLimit: RateLimitedError | null
}

/** A body answered 503 whose TaskCreated may yet be stored (ADR 0046). */
interface InDoubt {
  readonly taskId: string
  readonly settled: Promise<AppendSettlement>
}

type Outcome = { readonly created: TaskDoc; readonly waitSeconds: number | undefined } | { readonly refused: BatchResult; readonly inDoubt?: InDoubt }

/**
 * The batch as answered, and, when some body was answered 503 in doubt, `settling`: when each
 * such body is settled, and the results then, a body stored after all its 201 with the task as
 * stored (pending; its `waitSeconds` is not waited for), one not stored still a 503.
 */
export interface AnsweredBatch {
  readonly results: BatchResult[]
  readonly settling: { readonly settled: Promise<unknown>; readonly results: () => Promise<BatchResult[]> } | null
}

/**
 * POST /v1/tasks/batch: each body is created or refused exactly as a POST /v1/tasks of it
 * alone would be, one after the other in the order sent, so that outcomes are the same on
 * every run (an identical brief twice: the second is the 409; a budget that holds three
 * more tasks: the first three). Then the waits the bodies asked for (waitSeconds) run
 * together: the answer comes when the longest is over, not after their sum.
 */
export async function createTaskBatch(infra: AppContext, accountId: string, items: readonly BatchItem[], issuer: Issuer): Promise<{ results: BatchResult[] }> {
  const { results } = await answerTaskBatch(infra, accountId, items, issuer)
  return { results }
}

/** createTaskBatch, and what its answer becomes once the bodies answered 503 in doubt are settled (for Idempotency-Key). */
export async function answerTaskBatch(infra: AppContext, accountId: string, items: readonly BatchItem[], issuer: Issuer): Promise<AnsweredBatch> {
  const outcomes: Outcome[] = []
  // Each body's answer budget counts from its own turn, as a POST of it alone would; the
  // first's turn began when the request arrived (its wait in the rate limiter included).
  for (const [index, item] of items.entries()) {
    const turnBegan = index === 0 ? issuer.receivedAt : Date.now()
    outcomes.push(await createOne(infra, accountId, index, item, { ...issuer, receivedAt: turnBegan }))
  }
  const results = await Promise.all(
    outcomes.map(async (outcome): Promise<BatchResult> => {
      if ('refused' in outcome) return outcome.refused
      return { status: 201, task: taskView(await awaitWaitSeconds(infra, accountId, outcome.created, outcome.waitSeconds)) }
    }),
  )
  const inDoubt = outcomes.flatMap((outcome, index) => ('inDoubt' in outcome && outcome.inDoubt ? [{ index, ...outcome.inDoubt }] : []))
  const settling = { settled: Promise.all(inDoubt.map(({ settled }) => settled)), results: () => settledResults(infra, accountId, results, inDoubt) }
  return { results, settling: inDoubt.length === 0 ? null : settling }
}

/** The results with each body in doubt as settled: its task as stored, or the 503 it was answered. */
async function settledResults(infra: AppContext, accountId: string, results: readonly BatchResult[], inDoubt: readonly (InDoubt & { index: number })[]): Promise<BatchResult[]> {
  const final = [...results]
  for (const { index, taskId, settled } of inDoubt) {
    if ((await settled) === 'stored') final[index] = { status: 201, task: (await storedTask(infra, accountId, taskId)).task }
  }
  return final
}

async function createOne(infra: AppContext, accountId: string, index: number, { body, refusedByLimit }: BatchItem, issuer: Issuer): Promise<Outcome> {
  if (refusedByLimit) return { refused: { status: 429, ...errorBody('rate_limited', refusedByLimit.message), retryAfter: refusedByLimit.retryAfterSeconds } }
  if (!checkBody.Check(body)) {
    const errors = checkBody.Errors(body) as unknown as FastifySchemaValidationError[]
    return { refused: { status: 400, ...errorBody('invalid_request', describeValidation(errors, `tasks[${index}]`)) } }
  }
  const taskId = randomUUID()
  try {
    return { created: await createAgentTask(infra, accountId, body, issuer, taskId), waitSeconds: body.waitSeconds }
  } catch (err) {
    const refused = refusalOf(err, infra, index)
    return err instanceof AppendInDoubtError ? { refused, inDoubt: { taskId, settled: err.settled } } : { refused }
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

import { Type, type TSchema } from 'typebox'
import {
  BudgetExhaustedError,
  ConflictError,
  type DomainError,
  type DomainErrorCode,
  type ErrorDetails,
  InvalidInputError,
  NotFoundError,
  RateLimitedError,
  UnauthorizedError,
} from '../domain/errors.js'

/**
 * Every `code` an error answer can carry, by status. `error` says what went wrong for people
 * (and names the field); `code` is stable for programs. Domain codes come from the errors the
 * commands throw (src/domain/errors.ts); the others from the HTTP edges.
 */
export const ERROR_CODES = {
  400: ['invalid_request', 'malformed_request'],
  401: ['unauthenticated'],
  402: ['budget_exhausted'],
  403: ['origin_not_allowed', 'metrics_local_only', 'csrf_failed'],
  404: ['not_found'],
  405: ['method_not_allowed'],
  408: ['request_timeout'],
  409: [
    'identical_task_pending',
    'identical_task_being_created',
    'task_already_ended',
    'action_not_pending',
    'webhook_limit_reached',
    'schedule_limit_reached',
    'idempotency_key_in_flight',
    'conflict',
  ],
  413: ['body_too_large'],
  415: ['unsupported_media_type'],
  422: ['idempotency_key_reused'],
  429: ['rate_limited'],
  431: ['headers_too_large'],
  500: ['internal_error'],
  503: ['unavailable', 'shutting_down', 'not_ready', 'webhooks_disabled'],
} as const satisfies Record<number, readonly string[]>

export type ErrorStatusWithCode = keyof typeof ERROR_CODES
export type ErrorCode = (typeof ERROR_CODES)[ErrorStatusWithCode][number]

// Every domain code has a status it is answered with.
const _domainCodesAreListed: DomainErrorCode extends ErrorCode ? true : never = true
void _domainCodesAreListed

/** Seconds a client is asked to wait when NATS or MongoDB is out of reach (REST's `Retry-After`, MCP's `retryAfterSeconds`): about one election or reconnect. */
export const UNAVAILABLE_RETRY_AFTER_S = 2

/** An error answer's body. */
export function errorBody(code: ErrorCode, error: string, details: ErrorDetails = {}): { error: string; code: ErrorCode } & ErrorDetails {
  return { error, code, ...details }
}

const CODE_MEANINGS: Readonly<Record<ErrorCode, string>> = {
  invalid_request: 'a field is missing, unknown or invalid: `error` names it',
  malformed_request: 'the URL, the JSON or the HTTP itself could not be read',
  unauthenticated: 'missing, invalid, revoked or expired API key',
  budget_exhausted: "the account's monthly budget is spent or reserved",
  origin_not_allowed: 'a browser Origin the MCP endpoint does not admit',
  metrics_local_only: 'GET /metrics on the API port, without METRICS_TOKEN, answers clients on the same machine only',
  csrf_failed: 'a write authenticated by the console cookie came without its X-CSRF-Token or from another origin',
  not_found: 'no such resource, or one of another account',
  method_not_allowed: 'the path exists; `Allow` lists its methods',
  request_timeout: 'the request did not arrive in time',
  identical_task_pending: 'an identical brief is pending in this session; `existingTaskId` names its task',
  identical_task_being_created: 'an identical brief is being created at this moment; retry shortly',
  task_already_ended: 'the task has already ended',
  action_not_pending: 'the action is not awaiting approval',
  webhook_limit_reached: 'the account has as many webhooks as it may',
  schedule_limit_reached: 'the account has as many schedules as it may (SCHEDULES_PER_ACCOUNT, paused ones count)',
  idempotency_key_in_flight: 'a request with the same Idempotency-Key is still being answered',
  conflict: 'a concurrent change won',
  body_too_large: 'the body is over 64 KiB',
  unsupported_media_type: 'the body is not JSON',
  idempotency_key_reused: 'the Idempotency-Key was used with another request body',
  rate_limited: 'over the rate limit of this group; see Retry-After',
  headers_too_large: 'the request line and headers are too long',
  internal_error: 'a bug: the log has the request id',
  unavailable: 'NATS or MongoDB is out of reach for now; see Retry-After',
  shutting_down: 'this process is stopping; another one will answer',
  not_ready: 'the process is not ready (see `error`)',
  webhooks_disabled: 'webhooks are not enabled on this server',
}

/**
 * The error body schema of one status: its codes listed, each with what it means; named
 * `Error<status>` in the OpenAPI components, or `title` when a route narrows the codes.
 */
export function errorSchema(status: ErrorStatusWithCode, description: string, narrowed?: { readonly codes: readonly ErrorCode[]; readonly title: string }): TSchema {
  const codes = narrowed?.codes ?? ERROR_CODES[status]
  return Type.Object(
    {
      error: Type.String({ description: 'What went wrong, for people; a validation error names the field first (`body.name: …`)' }),
      code: Type.String({ enum: [...codes], description: `Stable, for programs: ${codes.map((code) => `\`${code}\`: ${CODE_MEANINGS[code]}`).join('; ')}` }),
      ...(status === 409 ? { existingTaskId: Type.Optional(Type.String({ format: 'uuid', description: 'With `identical_task_pending`: the pending task' })) } : {}),
    },
    { title: narrowed?.title ?? `Error${status}`, description },
  )
}

const STATUS_OF: ReadonlyArray<[new (...args: never[]) => Error, ErrorStatusWithCode]> = [
  [InvalidInputError, 400],
  [UnauthorizedError, 401],
  [BudgetExhaustedError, 402],
  [NotFoundError, 404],
  [ConflictError, 409],
  [RateLimitedError, 429],
]

/** The status a domain error is answered with, REST and batch items alike. */
export function statusOfDomainError(err: DomainError): ErrorStatusWithCode | null {
  return STATUS_OF.find(([type]) => err instanceof type)?.[1] ?? null
}

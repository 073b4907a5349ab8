/**
 * Domain errors carry what went wrong in the caller's terms: a message for people and a
 * stable `code` for programs (docs/errors in OpenAPI), with `details` a client may act on.
 * The HTTP layer maps each class to one status, the CLI prints the message. Nothing else
 * is thrown on purpose.
 */
export type DomainErrorCode =
  | 'invalid_request'
  | 'unauthenticated'
  | 'budget_exhausted'
  | 'not_found'
  | 'conflict'
  | 'identical_task_pending'
  | 'identical_task_being_created'
  | 'task_already_ended'
  | 'action_not_pending'
  | 'webhook_limit_reached'
  | 'schedule_limit_reached'
  | 'rate_limited'

/** What a client may act on besides the code: the task an identical brief is waiting on. */
export interface ErrorDetails {
  readonly existingTaskId?: string
}

interface DomainErrorOptions<Code extends DomainErrorCode> {
  readonly code?: Code
  readonly details?: ErrorDetails
}

export class DomainError extends Error {
  override readonly name: string = 'DomainError'
  readonly code: DomainErrorCode
  readonly details: ErrorDetails

  constructor(message: string, code: DomainErrorCode, details: ErrorDetails = {}) {
    super(message)
    this.code = code
    this.details = details
  }
}

export class NotFoundError extends DomainError {
  override readonly name = 'NotFoundError'
  constructor(message: string) {
    super(message, 'not_found')
  }
}

export type ConflictCode = 'conflict' | 'identical_task_pending' | 'identical_task_being_created' | 'task_already_ended' | 'action_not_pending' | 'webhook_limit_reached' | 'schedule_limit_reached'

export class ConflictError extends DomainError {
  override readonly name: string = 'ConflictError'
  constructor(message: string, options: DomainErrorOptions<ConflictCode> = {}) {
    super(message, options.code ?? 'conflict', options.details)
  }
}

export class InvalidInputError extends DomainError {
  override readonly name = 'InvalidInputError'
  constructor(message: string) {
    super(message, 'invalid_request')
  }
}

export class BudgetExhaustedError extends DomainError {
  override readonly name = 'BudgetExhaustedError'
  constructor(message: string) {
    super(message, 'budget_exhausted')
  }
}

export class UnauthorizedError extends DomainError {
  override readonly name = 'UnauthorizedError'
  constructor(message: string) {
    super(message, 'unauthenticated')
  }
}

export class RateLimitedError extends DomainError {
  override readonly name = 'RateLimitedError'
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message, 'rate_limited')
  }
}

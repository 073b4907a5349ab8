/**
 * Domain errors carry what went wrong in the caller's terms; the HTTP layer maps each
 * class to one status, the CLI prints the message. Nothing else is thrown on purpose.
 */
export class DomainError extends Error {
  override readonly name: string = 'DomainError'
}

export class NotFoundError extends DomainError {
  override readonly name = 'NotFoundError'
}

export class ConflictError extends DomainError {
  override readonly name: string = 'ConflictError'
}

export class InvalidInputError extends DomainError {
  override readonly name = 'InvalidInputError'
}

export class BudgetExhaustedError extends DomainError {
  override readonly name = 'BudgetExhaustedError'
}

export class UnauthorizedError extends DomainError {
  override readonly name = 'UnauthorizedError'
}

export class RateLimitedError extends DomainError {
  override readonly name = 'RateLimitedError'
  constructor(message: string, readonly retryAfterSeconds: number) {
    super(message)
  }
}

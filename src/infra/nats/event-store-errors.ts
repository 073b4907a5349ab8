/** Another writer appended to the aggregate since it was loaded. */
export class ConcurrencyError extends Error {
  override readonly name = 'ConcurrencyError'
}

/** The log could not be read or written (NATS down, timeout). */
export class EventStoreUnavailableError extends Error {
  override readonly name = 'EventStoreUnavailableError'
}

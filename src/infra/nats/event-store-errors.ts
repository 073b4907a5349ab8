/** Another writer appended to the aggregate since it was loaded. */
export class ConcurrencyError extends Error {
  override readonly name = 'ConcurrencyError'
}

/** The log could not be read or written (NATS down, timeout). */
export class EventStoreUnavailableError extends Error {
  override readonly name = 'EventStoreUnavailableError'
}

/**
 * How long the acknowledgement of an append answered late is still awaited in the background:
 * past a NATS pause or election, within the life of an Idempotency-Key in flight (150 s).
 */
export const LATE_ACK_MS = 30_000

/** What became of an append that was answered as unavailable while its message was on its way. */
export type AppendSettlement = 'stored' | 'not-stored' | 'unknown'

/**
 * An append that got no answer in time: its message may still be stored, after the caller
 * was answered 503. `settled` says, later, what became of it (never rejects): the request's
 * own acknowledgement if it comes, else what the log holds once NATS answers again. Worked out
 * only when asked (most callers just answer 503), once.
 */
export class AppendInDoubtError extends EventStoreUnavailableError {
  private settling: Promise<AppendSettlement> | undefined

  constructor(
    message: string,
    private readonly settle: () => Promise<AppendSettlement>,
  ) {
    super(message)
  }

  get settled(): Promise<AppendSettlement> {
    this.settling ??= this.settle().catch((): AppendSettlement => 'unknown')
    return this.settling
  }
}

import { setTimeout as sleep } from 'node:timers/promises'
import { isDependencyUnavailable } from './unavailable.js'

const BACKOFF_MS = [100, 250, 500, 1000, 2000, 5000] as const

export interface RetryOptions {
  /** How long to go on trying; the last failure is thrown past it. */
  readonly forMs: number
  /** Told of each failure that will be tried again. */
  readonly onRetry?: (err: unknown, attempt: number) => void
  /** Which failures are tried again: by default NATS or MongoDB out of reach or too slow. */
  readonly retryable?: (err: unknown) => boolean
}

/**
 * Runs `step` until it succeeds, again after a growing, jittered pause (0.1 s to 5 s) each
 * time NATS or MongoDB was out of reach or too slow to answer (a timeout under load), for up
 * to `forMs`. Any other failure is thrown at once. `step` must be safe to run twice: a
 * timed-out request may have been carried out.
 */
export async function whileUnreachable<T>(step: () => Promise<T>, options: RetryOptions): Promise<T> {
  const deadline = Date.now() + options.forMs
  for (let attempt = 0; ; attempt++) {
    try {
      return await step()
    } catch (err) {
      if (!(options.retryable ?? isDependencyUnavailable)(err) || Date.now() > deadline) throw err
      options.onRetry?.(err, attempt)
      const backoff = BACKOFF_MS[Math.min(attempt, BACKOFF_MS.length - 1)] ?? 5000
      await sleep(backoff * (0.5 + Math.random()))
    }
  }
}

/**
 * When the next attempt of a failed delivery is made: exponential from `baseMs`, capped
 * at `maxMs`, with jitter so receivers coming back from an outage are not hit by every
 * sender at once. The jitter takes at most a quarter off, so each wait is longer than the
 * one before until the cap (what receivers and tests can rely on).
 */
export interface RetryPolicy {
  readonly baseMs: number
  readonly maxMs: number
  /** Retries stop at the first failure this long after the first attempt. */
  readonly windowMs: number
}

export function retryDelayMs(policy: RetryPolicy, failedAttempts: number, random: () => number = Math.random): number {
  const exponential = policy.baseMs * 2 ** Math.min(failedAttempts - 1, 40)
  const capped = Math.min(policy.maxMs, exponential)
  return Math.round(capped * (1 - random() / 4))
}

export function shouldGiveUp(policy: RetryPolicy, firstAttemptAt: number, now: number): boolean {
  return now - firstAttemptAt >= policy.windowMs
}

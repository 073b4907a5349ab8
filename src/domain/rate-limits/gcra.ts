/**
 * The generic cell rate algorithm: a quota of `limit` requests per `windowMs`, refilled
 * continuously, with a burst of up to `limit` from rest. The only state is the
 * theoretical arrival time (TAT) of the next request; time is passed in, so this is pure.
 */
export interface RatePolicy {
  readonly name: string
  readonly limit: number
  readonly windowMs: number
}

export type RateDecision =
  | { readonly allowed: true; readonly tat: number; readonly remaining: number; readonly resetMs: number }
  | { readonly allowed: false; readonly retryAfterMs: number; readonly remaining: 0; readonly resetMs: number }

export function decide(policy: RatePolicy, storedTat: number | null, now: number): RateDecision {
  const interval = policy.windowMs / policy.limit
  const tolerance = interval * (policy.limit - 1)
  const tat = Math.max(storedTat ?? now, now)
  if (tat - now > tolerance) {
    return { allowed: false, retryAfterMs: tat - tolerance - now, remaining: 0, resetMs: tat - now }
  }
  const next = tat + interval
  return {
    allowed: true,
    tat: next,
    // How many more requests would be admitted right now.
    remaining: Math.max(0, Math.floor((tolerance + interval - (next - now)) / interval)),
    resetMs: next - now,
  }
}

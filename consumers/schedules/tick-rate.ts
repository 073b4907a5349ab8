import { decide, type RatePolicy } from '../../src/domain/rate-limits/gcra.js'

/**
 * The account's ticks per minute (SCHEDULE_TICKS_PER_MIN), kept by each scheduler in memory.
 * An account's schedules are all in one partition, fired by the one scheduler holding its
 * lease (ADR 0047), so that scheduler's count is the account's: no shared store is needed,
 * and ticks never spend the account's HTTP limits. (For a moment at a takeover two count it.)
 */
export class TickRate {
  private readonly tats = new Map<string, number>()
  private readonly policy: RatePolicy

  constructor(perMinute: number) {
    this.policy = { name: 'schedules.ticks', limit: perMinute, windowMs: 60_000 }
  }

  admit(accountId: string, now: Date): boolean {
    const decision = decide(this.policy, this.tats.get(accountId) ?? null, now.getTime())
    if (decision.allowed) this.tats.set(accountId, decision.tat)
    return decision.allowed
  }
}

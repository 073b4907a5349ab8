import { jetstream, JetStreamApiError } from '@nats-io/jetstream'
import type { KV } from '@nats-io/kv'
import type { NatsConnection } from '@nats-io/transport-node'
import type { Logger } from 'pino'
import { decide, type RateDecision, type RatePolicy } from '../../domain/rate-limits/gcra.js'
import { openBucket } from './buckets.js'

const BUCKET = 'mats_rate_limits'
const WRONG_LAST_SEQUENCE = 10071
const MAX_CAS_ATTEMPTS = 24
/** A limiter that cannot answer this fast is treated as unreachable. */
const STORE_TIMEOUT_MS = 500

/**
 * GCRA state shared by every API process: one KV entry per account and operation group
 * holding its TAT, advanced by compare-and-set, so N processes together admit no more
 * than one limit. Each process remembers the revision it last wrote, so an uncontended
 * admission costs one round trip. When NATS cannot be reached, each process falls back
 * to its own in-memory state with the same policies (see docs/adr/0009-rate-limits.md).
 */
export class RateLimitStore {
  private readonly known = new Map<string, { tat: number; revision: number }>()
  private readonly local = new Map<string, number>()
  private connected = true
  private lastWarning = 0

  private constructor(private readonly kv: KV, private readonly log: Logger) {}

  static async open(nc: NatsConnection, replicas: number, windowMs: number, log: Logger): Promise<RateLimitStore> {
    const js = jetstream(nc, { timeout: STORE_TIMEOUT_MS })
    // An entry idle for two windows is at rest anyway: let it expire.
    const kv = await openBucket(js, BUCKET, { history: 1, replicas, ttl: windowMs * 2 })
    const store = new RateLimitStore(kv, log)
    void store.followConnection(nc)
    return store
  }

  async admit(policy: RatePolicy, key: string, now: number): Promise<RateDecision> {
    if (!this.connected) return this.admitLocally(policy, key, now)
    try {
      return (await this.admitShared(policy, key, now)) ?? this.contended(policy, key, now)
    } catch (err) {
      this.warn(err)
      return this.admitLocally(policy, key, now)
    }
  }

  /** Undefined when every compare-and-set lost a race. */
  private async admitShared(policy: RatePolicy, key: string, now: number): Promise<RateDecision | undefined> {
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      // Racers that all lost back off by different amounts, so one of them wins next.
      if (attempt > 1) await new Promise((r) => setTimeout(r, Math.random() * attempt * 2))
      const fresh = attempt > 0 || !this.known.has(key)
      const current = fresh ? await this.read(key) : this.known.get(key)!
      const decision = decide(policy, current.revision === 0 ? null : current.tat, now)
      // A refusal from a cached TAT may be early; Retry-After must come from the real one.
      if (!decision.allowed) return fresh ? decision : decide(policy, (await this.read(key)).tat || null, now)
      try {
        const value = String(decision.tat)
        const revision = current.revision === 0 ? await this.kv.create(key, value) : await this.kv.update(key, value, current.revision)
        this.known.set(key, { tat: decision.tat, revision })
        return decision
      } catch (err) {
        if (!(err instanceof JetStreamApiError) || err.code !== WRONG_LAST_SEQUENCE) throw err
        this.known.delete(key)
      }
    }
    return undefined
  }

  /** Never a 500 for a busy key: this process decides alone, as if the store were away. */
  private contended(policy: RatePolicy, key: string, now: number): RateDecision {
    this.log.warn({ key }, 'rate-limit entry too contended; decided by this process alone')
    return this.admitLocally(policy, key, now)
  }

  private async read(key: string): Promise<{ tat: number; revision: number }> {
    const entry = await this.kv.get(key)
    // Absent, expired or deleted: revision 0 means the next write creates it.
    const state = entry && entry.operation === 'PUT' ? { tat: Number(entry.string()), revision: entry.revision } : { tat: 0, revision: 0 }
    this.known.set(key, state)
    return state
  }

  private admitLocally(policy: RatePolicy, key: string, now: number): RateDecision {
    const decision = decide(policy, this.local.get(key) ?? null, now)
    if (decision.allowed) this.local.set(key, decision.tat)
    return decision
  }

  private async followConnection(nc: NatsConnection): Promise<void> {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect') this.connected = false
      if (status.type === 'reconnect') {
        this.connected = true
        this.known.clear()
      }
    }
  }

  private warn(err: unknown): void {
    if (Date.now() - this.lastWarning < 10_000) return
    this.lastWarning = Date.now()
    this.log.warn({ err }, 'rate-limit store unreachable: limiting per process until it answers')
  }
}

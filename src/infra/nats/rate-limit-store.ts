import { jetstream, JetStreamApiCodes, JetStreamApiError, StorageType } from '@nats-io/jetstream'
import type { KV } from '@nats-io/kv'
import type { NatsConnection } from '@nats-io/transport-node'
import type { Logger } from 'pino'
import { decide, type RateDecision, type RatePolicy } from '../../domain/rate-limits/gcra.js'
import { openBucket } from './buckets.js'
import { isWrongLastSequence } from './conflicts.js'

const BUCKET = 'mats_rate_limits'
const MAX_CAS_ATTEMPTS = 24
/** A limiter that cannot answer this fast is treated as unreachable. */
const STORE_TIMEOUT_MS = 500
const REOPEN_EVERY_MS = 5000

interface Waiter {
  readonly policy: RatePolicy
  readonly now: number
  readonly resolve: (decision: RateDecision) => void
}

/**
 * GCRA state shared by every API process: one KV entry per account and operation group
 * holding its TAT, advanced by compare-and-set, so N processes together admit no more
 * than one limit. Within a process, requests for a key that arrive while its write is in
 * flight are decided together by the next write: one round trip admits a whole batch,
 * exactly as if they had come one by one. When NATS cannot be reached, each process
 * falls back to its own in-memory state with the same policies (docs/adr/0009).
 */
export class RateLimitStore {
  private readonly known = new Map<string, { tat: number; revision: number }>()
  private readonly local = new Map<string, number>()
  private readonly queues = new Map<string, Waiter[]>()
  private connected = true
  private lastWarning = 0

  private lastReopen = 0

  private constructor(
    private kv: KV,
    private readonly reopen: () => Promise<KV>,
    private readonly log: Logger,
  ) {}

  static async open(nc: NatsConnection, replicas: number, windowMs: number, log: Logger): Promise<RateLimitStore> {
    const js = jetstream(nc, { timeout: STORE_TIMEOUT_MS })
    // Disposable by design (it only delays callers), so kept in memory; an entry idle for
    // two windows is at rest anyway, so it expires.
    const bucket = () => openBucket(js, BUCKET, { history: 1, replicas, ttl: windowMs * 2, storage: StorageType.Memory })
    const store = new RateLimitStore(await bucket(), bucket, log)
    void store.followConnection(nc)
    return store
  }

  admit(policy: RatePolicy, key: string, now: number): Promise<RateDecision> {
    if (!this.connected) return Promise.resolve(this.admitLocally(policy, key, now))
    return new Promise((resolve) => {
      // A request waits for the shared store no longer than one of its answers may take, also
      // queued behind a batch of its key whose reads are timing out (NATS just gone, the
      // connection not yet known lost): past that it is decided here, as when NATS is away, so
      // the rest of the request keeps its 2 s (invariant 11). A later shared decision is ignored.
      const timer = setTimeout(() => resolve(this.admitLocally(policy, key, now)), STORE_TIMEOUT_MS)
      const waiter = {
        policy,
        now,
        resolve: (decision: RateDecision) => {
          clearTimeout(timer)
          resolve(decision)
        },
      }
      const queue = this.queues.get(key)
      if (queue) return void queue.push(waiter)
      this.queues.set(key, [waiter])
      void this.flush(key)
    })
  }

  /** Decides every waiter of `key` with as few writes as contention allows, then the next batch. */
  private async flush(key: string): Promise<void> {
    while (true) {
      const batch = this.queues.get(key) ?? []
      if (batch.length === 0) return void this.queues.delete(key)
      this.queues.set(key, [])
      try {
        const decisions = (await this.decideShared(key, batch)) ?? this.contended(key, batch)
        for (const [i, waiter] of batch.entries()) waiter.resolve(decisions[i]!)
      } catch (err) {
        this.warn(err)
        for (const waiter of batch) waiter.resolve(this.admitLocally(waiter.policy, key, waiter.now))
        await this.recreateIfLost(err)
      }
    }
  }

  /** Undefined when every compare-and-set lost a race to another process. */
  private async decideShared(key: string, batch: readonly Waiter[]): Promise<RateDecision[] | undefined> {
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      // Processes that all lost back off by different amounts, so one of them wins next.
      if (attempt > 1) await new Promise((r) => setTimeout(r, Math.random() * attempt * 2))
      const fresh = attempt > 0 || !this.known.has(key)
      const current = fresh ? await this.read(key) : this.known.get(key)!
      const { decisions, tat } = decideAll(batch, current.revision === 0 ? null : current.tat)
      if (tat === null) {
        // All refused. From a cached TAT that may be early: Retry-After must come from the real one.
        return fresh ? decisions : decideAll(batch, (await this.read(key)).tat || null).decisions
      }
      try {
        const value = String(tat)
        const revision = current.revision === 0 ? await this.kv.create(key, value) : await this.kv.update(key, value, current.revision)
        this.known.set(key, { tat, revision })
        return decisions
      } catch (err) {
        if (!isWrongLastSequence(err)) throw err
        this.known.delete(key)
      }
    }
    return undefined
  }

  private async read(key: string): Promise<{ tat: number; revision: number }> {
    const entry = await this.kv.get(key)
    // Absent, expired or deleted: revision 0 means the next write creates it.
    const state = entry && entry.operation === 'PUT' ? { tat: Number(entry.string()), revision: entry.revision } : { tat: 0, revision: 0 }
    this.known.set(key, state)
    return state
  }

  /** Never a 500 for a busy key: this process decides alone, as if the store were away. */
  private contended(key: string, batch: readonly Waiter[]): RateDecision[] {
    this.log.warn({ key }, 'rate-limit entry too contended; decided by this process alone')
    return batch.map((waiter) => this.admitLocally(waiter.policy, key, waiter.now))
  }

  private admitLocally(policy: RatePolicy, key: string, now: number): RateDecision {
    const decision = decide(policy, this.local.get(key) ?? null, now)
    if (decision.allowed) this.local.set(key, decision.tat)
    return decision
  }

  /**
   * A memory bucket does not survive a restart of a single NATS server: when the store
   * says it is gone, it is created again (at most every few seconds), not left missing.
   */
  private async recreateIfLost(err: unknown): Promise<void> {
    const lost = err instanceof JetStreamApiError ? err.code === JetStreamApiCodes.StreamNotFound : /no responders|not found/i.test(String(err))
    if (!lost || Date.now() - this.lastReopen < REOPEN_EVERY_MS) return
    this.lastReopen = Date.now()
    try {
      this.kv = await this.reopen()
      this.known.clear()
      this.log.info('rate-limit store recreated; limits are shared again')
    } catch (reopenErr) {
      this.warn(reopenErr)
    }
  }

  private async followConnection(nc: NatsConnection): Promise<void> {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect') {
        this.connected = false
        this.log.warn('NATS disconnected: rate limits are kept per process until it reconnects')
      }
      if (status.type === 'reconnect') {
        this.connected = true
        this.known.clear()
        this.log.info('NATS reconnected: rate limits are shared again')
      }
    }
  }

  private warn(err: unknown): void {
    if (Date.now() - this.lastWarning < 10_000) return
    this.lastWarning = Date.now()
    this.log.warn({ err }, 'rate-limit store unreachable: limiting per process until it answers')
  }
}

/** The batch's requests in arrival order, each seeing the TAT the previous ones left; `tat` null if none was admitted. */
function decideAll(batch: readonly Waiter[], storedTat: number | null): { decisions: RateDecision[]; tat: number | null } {
  let tat = storedTat
  let admitted = false
  const decisions = batch.map((waiter) => {
    const decision = decide(waiter.policy, tat, waiter.now)
    if (decision.allowed) {
      tat = decision.tat
      admitted = true
    }
    return decision
  })
  return { decisions, tat: admitted ? tat : null }
}

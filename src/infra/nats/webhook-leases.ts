import { randomUUID } from 'node:crypto'
import { StorageType, type JetStreamClient } from '@nats-io/jetstream'
import type { KV } from '@nats-io/kv'
import { admit, release, type InFlightCaps, type Lease } from '../../domain/webhooks/fairness.js'
import { openBucket } from './buckets.js'
import { isWrongLastSequence } from './conflicts.js'

const BUCKET = 'mats_webhook_leases'
/** Entries of accounts that stopped sending are dropped after a day. */
const DAY_MS = 86_400_000
/** Compare-and-set rounds before an acquire counts as busy (other processes of the same account won each round). */
const MAX_ROUNDS = 5

export type Acquired = { readonly lease: Lease } | { readonly retryInMs: number; readonly blockedBy: 'account' | 'webhook' | 'queue' }

/**
 * The attempts in flight of each account, shared by every webhooks process (ADR 0027): one
 * KV entry per account holding its leases, changed only with compare-and-set, so the caps
 * hold across processes with no coordinator. Only the account's own attempts contend for
 * its entry. A lease is dropped when released or, should its process die, once `until` passes.
 */
export class WebhookLeases {
  private constructor(
    private readonly kv: KV,
    private readonly caps: InFlightCaps,
    /** How long a lease holds at most: the attempt's time limit and a margin. */
    private readonly holdMs: number,
  ) {}

  static async open(js: JetStreamClient, options: { replicas: number; caps: InFlightCaps; holdMs: number }): Promise<WebhookLeases> {
    const kv = await openBucket(js, BUCKET, { history: 1, replicas: options.replicas, ttl: DAY_MS, storage: StorageType.Memory })
    return new WebhookLeases(kv, options.caps, options.holdMs)
  }

  /** A lease for one attempt of the head of the job queue `subject` (its claim across processes), under the account's and the webhook's caps. */
  async acquire(accountId: string, webhookId: string, subject: string): Promise<Acquired> {
    const now = Date.now()
    const candidate: Lease = { id: randomUUID(), webhookId, subject, since: now, until: now + this.holdMs }
    let refused: Acquired = { retryInMs: 25, blockedBy: 'account' }
    const stored = await this.change(accountId, (leases) => {
      const admission = admit(leases, candidate, this.caps, Date.now())
      if (admission.admitted) return admission.leases
      refused = { retryInMs: admission.retryInMs, blockedBy: admission.blockedBy }
      return null
    })
    return stored ? { lease: candidate } : refused
  }

  /** Whether an attempt of the webhook would be admitted now (one read, nothing written): spares reading its jobs while the account or the webhook is at its cap. */
  async room(accountId: string, webhookId: string): Promise<{ readonly retryInMs: number; readonly blockedBy: 'account' | 'webhook' | 'queue' } | null> {
    const entry = await this.kv.get(`account.${accountId}`)
    const leases = entry?.value.length ? entry.json<Lease[]>() : []
    const now = Date.now()
    const admission = admit(leases, { id: '', webhookId, since: now, until: now }, this.caps, now)
    return admission.admitted ? null : admission
  }

  /** Best effort: a lease not released (NATS out of reach) expires at its `until`. */
  async release(accountId: string, lease: Lease): Promise<void> {
    await this.change(accountId, (leases) => release(leases, lease.id, Date.now())).catch(() => undefined)
  }

  /** Applies `next` to the account's leases with compare-and-set; false if `next` declined or every round lost. */
  private async change(accountId: string, next: (leases: readonly Lease[]) => Lease[] | null): Promise<boolean> {
    const key = `account.${accountId}`
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const entry = await this.kv.get(key)
      const leases = entry?.value.length ? entry.json<Lease[]>() : []
      const changed = next(leases)
      if (!changed) return false
      try {
        if (entry) await this.kv.update(key, JSON.stringify(changed), entry.revision)
        else await this.kv.create(key, JSON.stringify(changed))
        return true
      } catch (err) {
        if (!isWrongLastSequence(err)) throw err
      }
    }
    return false
  }
}

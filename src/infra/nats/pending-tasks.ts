import type { KV } from '@nats-io/kv'
import { type JetStreamClient, PubHeaders } from '@nats-io/jetstream'
import { headers, type NatsConnection } from '@nats-io/transport-node'
import { openBucket } from './buckets.js'
import { publishBestEffort } from './best-effort.js'
import { isWrongLastSequence } from './conflicts.js'

const BUCKET = 'mats_pending_tasks'
/** The KV wire header naming a delete (nats.js kv's `kvOperationHdr`, which its package does not export). */
const KV_OPERATION = 'KV-Operation'

/**
 * One entry per pending task, keyed by its identity in the session: `create` is atomic
 * across every API process, so of N identical concurrent requests exactly one gets the
 * entry. The worker removes it when it claims the task. This is derived state: losing
 * the bucket loses no task, only the duplicate check for tasks pending at that moment.
 */
export class PendingTasks {
  private constructor(
    private readonly kv: KV,
    private readonly nc: NatsConnection,
  ) {}

  static async open(nc: NatsConnection, js: JetStreamClient, replicas: number): Promise<PendingTasks> {
    return new PendingTasks(await openBucket(js, BUCKET, { history: 1, replicas }), nc)
  }

  static key(accountId: string, fingerprint: string): string {
    return `${accountId}.${fingerprint}`
  }

  /**
   * Takes the entry for `taskId` and returns its revision (the task's to release it by); or the
   * task that holds it when another does.
   */
  async acquire(key: string, taskId: string): Promise<{ acquired: true; revision: number } | { acquired: false; holder: string; revision: number; since: Date }> {
    try {
      return { acquired: true, revision: await this.kv.create(key, taskId) }
    } catch (err) {
      if (!isWrongLastSequence(err)) throw err
      const entry = await this.kv.get(key)
      if (entry?.operation !== 'PUT') return this.acquire(key, taskId)
      return { acquired: false, holder: entry.string(), revision: entry.revision, since: entry.created }
    }
  }

  /** Removes a stale entry, only if it is still the revision that was seen. */
  async releaseStale(key: string, revision: number): Promise<void> {
    await this.kv.delete(key, { previousSeq: revision }).catch(() => undefined)
  }

  /**
   * Removes the entry if `taskId` still holds it. Throws when NATS does not answer (a timeout
   * under load); running it again is harmless: a removed entry is not held any more.
   * `revision`: the one the task's creation took (its TaskCreated carries it, ADR 0050): the
   * entry is removed only if it is still that very entry, without reading it first (2 NATS
   * messages fewer per task). Without it (a task created before), the entry is read first.
   */
  async release(key: string, taskId: string, revision?: number): Promise<void> {
    const held = revision ?? (await this.revisionHeldBy(key, taskId))
    if (held === undefined) return
    try {
      await this.kv.delete(key, { previousSeq: held })
    } catch (err) {
      // Moved since it was read: another request cleared it (and may hold it now).
      if (!isWrongLastSequence(err)) throw err
    }
  }

  /**
   * Removes the entry if it is still revision `revision`, without asking for an answer: JetStream
   * stores a publish that carries no reply subject without acknowledging it, so this is one NATS
   * message where `release` costs two (ADR 0063). For a task that is claimed or cancelled: if the
   * removal is lost or refused, the entry names a task that is no longer pending, and the next
   * identical brief clears it as stale (create-task's `acquireIdentity`) at no cost to anyone else.
   */
  releaseUnacknowledged(key: string, revision: number): void {
    const h = headers()
    h.set(KV_OPERATION, 'DEL')
    h.set(PubHeaders.ExpectedLastSubjectSequenceHdr, `${revision}`)
    // Not sent (the process stops): the entry is cleared as stale by the next identical brief.
    publishBestEffort(this.nc, `$KV.${BUCKET}.${key}`, { headers: h })
  }

  private async revisionHeldBy(key: string, taskId: string): Promise<number | undefined> {
    const entry = await this.kv.get(key)
    return entry?.operation === 'PUT' && entry.string() === taskId ? entry.revision : undefined
  }
}

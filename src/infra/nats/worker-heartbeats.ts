import { StorageType, type JetStreamClient } from '@nats-io/jetstream'
import type { KV } from '@nats-io/kv'
import { openBucket } from './buckets.js'

const BUCKET = 'mats_workers'
/** Only tidies the entries of workers that died; a live worker rewrites its entry every few seconds. */
const FORGET_AFTER_MS = 24 * 60 * 60 * 1000

/**
 * Each worker says it is alive every few seconds (`beat`), with how long that holds. A task
 * whose TaskCreated is redelivered is failed as lost only if the worker that claimed it has
 * stopped saying so: a redelivery alone may mean that the worker's in-progress acks were lost
 * while NATS was out of reach, not that the worker died (invariant 11).
 */
export class WorkerHeartbeats {
  private constructor(private readonly kv: KV) {}

  static async open(js: JetStreamClient, replicas: number): Promise<WorkerHeartbeats> {
    // On disk: a restarted single server must not forget that its workers are alive.
    return new WorkerHeartbeats(await openBucket(js, BUCKET, { history: 1, replicas, ttl: FORGET_AFTER_MS, storage: StorageType.File }))
  }

  /** This worker is alive for `forMs` from now (as the server stamps the entry). */
  async beat(workerId: string, forMs: number): Promise<void> {
    await this.kv.put(keyOf(workerId), JSON.stringify({ forMs }))
  }

  /** How much longer the worker counts as alive, in ms: 0 once it has stopped saying so. */
  async aliveFor(workerId: string, now: Date): Promise<number> {
    const entry = await this.kv.get(keyOf(workerId))
    if (entry?.operation !== 'PUT') return 0
    const { forMs } = entry.json<{ forMs: number }>()
    return Math.max(0, entry.created.getTime() + forMs - now.getTime())
  }

  /** A worker that stops gracefully has ended or handed back every task: nothing to wait for. */
  async forget(workerId: string): Promise<void> {
    await this.kv.delete(keyOf(workerId))
  }
}

/** Worker ids hold `:`, which KV keys may not. */
function keyOf(workerId: string): string {
  return Buffer.from(workerId).toString('base64url')
}

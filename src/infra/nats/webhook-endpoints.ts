import { StorageType, type JetStreamClient } from '@nats-io/jetstream'
import { Kvm, type KV } from '@nats-io/kv'
import { afterAttempt, HEALTHY, type EndpointHealth, type PausePolicy } from '../../domain/webhooks/fairness.js'
import { openBucket } from './buckets.js'

const BUCKET = 'mats_webhook_endpoints'
const DAY_MS = 86_400_000

/**
 * Each webhook's recent timeouts and pause (ADR 0027), shared by every webhooks process and
 * read by the API (a webhook's `pausedUntil`). Written only when something changes: a
 * prompt endpoint costs one read per attempt. Two processes timing out at once may count
 * one timeout, not two: the pause comes one attempt later, which is harmless.
 */
export class WebhookEndpoints {
  private constructor(private readonly kv: KV) {}

  static async open(js: JetStreamClient, options: { replicas: number }): Promise<WebhookEndpoints> {
    return new WebhookEndpoints(await openBucket(js, BUCKET, { history: 1, replicas: options.replicas, ttl: DAY_MS, storage: StorageType.File }))
  }

  /** For readers (the API): binds without asking the server; a bucket not created yet reads as healthy. */
  static reader(js: JetStreamClient): Promise<WebhookEndpoints> {
    return new Kvm(js).open(BUCKET).then((kv) => new WebhookEndpoints(kv))
  }

  async health(webhookId: string): Promise<EndpointHealth> {
    const entry = await this.kv.get(webhookId).catch(() => null)
    return entry?.value.length ? entry.json<EndpointHealth>() : HEALTHY
  }

  /** Records an attempt's outcome; returns the health after it. */
  async record(webhookId: string, before: EndpointHealth, timedOut: boolean, policy: PausePolicy): Promise<EndpointHealth> {
    const after = afterAttempt(before, timedOut, policy, Date.now())
    if (after === HEALTHY && before.timeouts === 0 && before.pauses === 0) return after
    await this.kv.put(webhookId, JSON.stringify(after))
    return after
  }
}

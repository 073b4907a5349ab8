import { StorageType, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream'
import type { KV } from '@nats-io/kv'
import { openBucket } from './buckets.js'
import { isWrongLastSequence } from './conflicts.js'
import { isNoMessage } from './log-reader.js'
import { JOBS_STREAM, jobSubject, LEGACY_JOBS_FILTER, webhookJobsFilter } from './webhook-streams.js'
import { directBatch, type DirectReads } from './direct-batch.js'

const BUCKET = 'mats_webhook_queues'

/** A job as it sits in the queue: its stream sequence (what removes it) and its subject (its (webhook, task) queue). */
export interface QueuedJob {
  readonly seq: number
  readonly subject: string
  readonly data: Uint8Array
}

/** A webhook with jobs queued (a PUT of its index key) or none left (a DEL). */
export interface QueueChange {
  readonly accountId: string
  readonly webhookId: string
  readonly revision: number
  readonly queued: boolean
}

/**
 * The jobs of each webhook, read apart from every other account's (ADR 0033). Jobs sit in
 * `MATS_WEBHOOK_JOBS` on `mats_webhooks.job.<accountId>.<webhookId>.<taskId>` with no
 * consumer: a deliverer reads a webhook's jobs with a direct get from the start of the
 * stream filtered to that webhook, and removes a job once it is delivered or given up. Which
 * webhooks have jobs is an index in KV `mats_webhook_queues` (`<accountId>.<webhookId>`),
 * written after the jobs and watched by every webhooks process: a new job wakes its account
 * at once, and a webhook found empty is dropped from the index only if no job came since.
 */
export class WebhookQueue {
  private readonly js: JetStreamClient
  private readonly jsm: JetStreamManager

  private constructor(
    private readonly nats: DirectReads & { readonly js: JetStreamClient },
    private readonly index: KV,
  ) {
    this.js = nats.js
    this.jsm = nats.jsm
  }

  static async open(nats: DirectReads & { readonly js: JetStreamClient }, options: { replicas: number }): Promise<WebhookQueue> {
    // File storage: the index must outlive a restart, or queued jobs would wait for the next start's rebuild.
    const index = await openBucket(nats.js, BUCKET, { history: 1, replicas: options.replicas, storage: StorageType.File })
    return new WebhookQueue(nats, index)
  }

  /** Queues one job, then marks its webhook as having jobs (in that order: a reader that sees the mark finds the job). */
  async enqueue(job: { readonly accountId: string; readonly webhookId: string; readonly taskId: string }, body: string, msgID: string): Promise<void> {
    await this.store(job, body, msgID)
    await this.markQueued(job.accountId, job.webhookId)
  }

  /** Stores one job without marking its webhook: the caller marks each webhook once, after all of its jobs (the fan-out of a batch of events). */
  async store(job: { readonly accountId: string; readonly webhookId: string; readonly taskId: string }, body: string, msgID: string): Promise<void> {
    await this.js.publish(jobSubject(job.accountId, job.webhookId, job.taskId), body, { msgID })
  }

  async markQueued(accountId: string, webhookId: string): Promise<void> {
    await this.index.put(`${accountId}.${webhookId}`, '')
  }

  /**
   * At start: marks every webhook that has jobs but no mark (an index lost or never written),
   * and moves jobs queued before ADR 0033 (no account in their subject) to their account's
   * subject, in order, each under a message id so that two processes moving at once store it once.
   */
  async reconcile(accountOf: (data: Uint8Array) => string): Promise<void> {
    await this.moveLegacyJobs(accountOf)
    const info = await this.jsm.streams.info(JOBS_STREAM, { subjects_filter: 'mats_webhooks.job.>' })
    const queued = new Set(Object.keys(info.state.subjects ?? {}).map((subject) => subject.split('.').slice(2, 4).join('.')))
    const marked = new Set<string>()
    for await (const key of await this.index.keys()) marked.add(key)
    for (const key of queued) if (!marked.has(key)) await this.index.put(key, '')
  }

  private async moveLegacyJobs(accountOf: (data: Uint8Array) => string): Promise<void> {
    for (;;) {
      let legacy: { seq: number; subject: string; data: Uint8Array } | null = null
      try {
        legacy = await this.jsm.streams.getMessage(JOBS_STREAM, firstOn(LEGACY_JOBS_FILTER))
      } catch (err) {
        if (!isNoMessage(err)) throw err
      }
      if (!legacy) return
      const [, , webhookId = '', taskId = ''] = legacy.subject.split('.')
      await this.js.publish(jobSubject(accountOf(legacy.data), webhookId, taskId), legacy.data, { msgID: `legacy.${legacy.seq}` })
      await this.remove(legacy.seq)
    }
  }

  /** Every change of the index, the current marks first; ends when `stop` is called. */
  async watch(onChange: (change: QueueChange) => void): Promise<{ stop: () => void; done: Promise<void> }> {
    const watcher = await this.index.watch({ key: '>' })
    const done = (async () => {
      for await (const entry of watcher) {
        const [accountId, webhookId] = entry.key.split('.')
        if (accountId && webhookId) onChange({ accountId, webhookId, revision: entry.revision, queued: entry.operation === 'PUT' })
      }
    })()
    return { stop: () => watcher.stop(), done }
  }

  /** The webhook's oldest jobs from sequence `from`, in queue order, up to `max` (a direct get: may lag behind the leader, so a job is checked with `isQueued` before it is attempted). */
  async oldest(accountId: string, webhookId: string, max: number, from = 1): Promise<QueuedJob[]> {
    const jobs: QueuedJob[] = []
    try {
      const batch = await directBatch(this.nats, JOBS_STREAM, { seq: from, next_by_subj: webhookJobsFilter(accountId, webhookId), batch: max })
      for (const msg of batch) jobs.push({ seq: msg.seq, subject: msg.subject, data: msg.data })
    } catch (err) {
      if (!isNoMessage(err)) throw err
    }
    return jobs
  }

  /** Asked of the stream leader: whether the job is still queued (not removed by another process that delivered it). */
  async isQueued(seq: number): Promise<boolean> {
    try {
      return (await this.jsm.streams.getMessage(JOBS_STREAM, { seq })) !== null
    } catch (err) {
      if (isNoMessage(err)) return false
      throw err
    }
  }

  /**
   * Drops the webhook's mark if it still has no job (asked of the leader) and no job was
   * queued since the mark at `revision` was seen; true when dropped.
   */
  async unmarkIfEmpty(accountId: string, webhookId: string, revision: number): Promise<boolean> {
    try {
      if (await this.jsm.streams.getMessage(JOBS_STREAM, firstOn(webhookJobsFilter(accountId, webhookId)))) return false
    } catch (err) {
      if (!isNoMessage(err)) throw err
    }
    try {
      await this.index.delete(`${accountId}.${webhookId}`, { previousSeq: revision })
      return true
    } catch (err) {
      if (isWrongLastSequence(err)) return false
      throw err
    }
  }

  /** Removes a job delivered or given up: the next job of its (webhook, task) becomes the head. */
  async remove(seq: number): Promise<void> {
    try {
      await this.jsm.streams.deleteMessage(JOBS_STREAM, seq, false)
    } catch (err) {
      if (!isNoMessage(err)) throw err
    }
  }

  /** Removes every job of a deleted webhook. */
  async dropWebhook(accountId: string, webhookId: string): Promise<void> {
    await this.jsm.streams.purge(JOBS_STREAM, { filter: webhookJobsFilter(accountId, webhookId) })
  }
}

/** The first message on `filter`, asked of the leader (the server takes `next_by_subj` on STREAM.MSG.GET; nats.js's type leaves it out). */
function firstOn(filter: string): { seq: number } {
  const request = { seq: 1, next_by_subj: filter }
  return request
}

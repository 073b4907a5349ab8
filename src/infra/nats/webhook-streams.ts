import { DiscardPolicy, JetStreamApiCodes, JetStreamApiError, RetentionPolicy, StorageType, type JetStreamManager, type StreamConfig } from '@nats-io/jetstream'

/**
 * Webhook deliveries are operational data, not history, so they live outside the event
 * log (ADR 0025): a queue of jobs, one subject per (account, webhook, task) so that a task's
 * deliveries to one receiver go in order and each account's jobs can be read apart from the
 * others' (ADR 0033), and a capped log of attempts per webhook.
 */
export const JOBS_STREAM = 'MATS_WEBHOOK_JOBS'
export const ATTEMPTS_STREAM = 'MATS_WEBHOOK_ATTEMPTS'
/** The one consumer that fanned out every account's task events in log order until ADR 0042: its position seeds the accounts' cursors, then it is removed at start. */
export const LEGACY_FAN_OUT_CONSUMER = 'mats-webhooks'
/** The one consumer that handed out every account's jobs in arrival order until ADR 0033: removed at start. */
export const LEGACY_DELIVERY_CONSUMER = 'mats-webhook-deliveries'
/** GET /v1/webhooks/{id}/deliveries shows this many attempts at most, newest first. */
export const ATTEMPTS_KEPT = 100

const NANOS_PER_MS = 1_000_000
const DAY_MS = 86_400_000

export const jobSubject = (accountId: string, webhookId: string, taskId: string) => `mats_webhooks.job.${accountId}.${webhookId}.${taskId}`
/** Every queued job of one webhook (of one account). */
export const webhookJobsFilter = (accountId: string, webhookId: string) => `mats_webhooks.job.${accountId}.${webhookId}.*`
/** Jobs queued before ADR 0033 (`mats_webhooks.job.<webhookId>.<taskId>`, no account): moved at start. */
export const LEGACY_JOBS_FILTER = 'mats_webhooks.job.*.*'
export const attemptsSubject = (webhookId: string) => `mats_webhooks.attempt.${webhookId}`

function streamConfigs(replicas: number, retryWindowMs: number): (Partial<StreamConfig> & { name: string })[] {
  const common = { storage: StorageType.File, num_replicas: replicas, discard: DiscardPolicy.Old, allow_direct: true }
  return [
    // Jobs outlive their retry window by a day at most, should a deliverer never come back.
    {
      ...common,
      name: JOBS_STREAM,
      subjects: ['mats_webhooks.job.>'],
      retention: RetentionPolicy.Workqueue,
      max_age: (retryWindowMs + DAY_MS) * NANOS_PER_MS,
      description: 'mats webhook deliveries still to make',
    },
    {
      ...common,
      name: ATTEMPTS_STREAM,
      subjects: ['mats_webhooks.attempt.>'],
      retention: RetentionPolicy.Limits,
      max_msgs_per_subject: ATTEMPTS_KEPT,
      max_age: 30 * DAY_MS * NANOS_PER_MS,
      description: 'mats webhook delivery attempts, the last 100 per webhook',
    },
  ]
}

/**
 * The streams. The fan-out reads each account's task events from its own cursor (ADR 0042,
 * fan-out-cursors.ts), which registering a webhook creates before its event is stored.
 */
export async function ensureWebhookStreams(jsm: JetStreamManager, options: { replicas: number; retryWindowMs: number }): Promise<void> {
  for (const config of streamConfigs(options.replicas, options.retryWindowMs)) {
    await addUnlessPresent(
      () => jsm.streams.info(config.name),
      () => jsm.streams.add(config),
    )
  }
}

async function addUnlessPresent(info: () => Promise<unknown>, add: () => Promise<unknown>): Promise<void> {
  try {
    await info()
    return
  } catch (err) {
    if (!(err instanceof JetStreamApiError) || (err.code !== JetStreamApiCodes.StreamNotFound && err.code !== JetStreamApiCodes.ConsumerNotFound)) throw err
  }
  try {
    await add()
  } catch (err) {
    // Another process created it between our info and add (stream or consumer name in use).
    if (!(err instanceof JetStreamApiError) || (err.code !== 10058 && err.code !== 10148)) throw err
  }
}

import { AckPolicy, DeliverPolicy, DiscardPolicy, JetStreamApiCodes, JetStreamApiError, RetentionPolicy, StorageType, type JetStreamManager, type StreamConfig } from '@nats-io/jetstream'
import { WEBHOOK_SOURCE_EVENTS } from '../../domain/webhooks/webhook.js'
import { eventTypeSubjects } from './subjects.js'

/**
 * Webhook deliveries are operational data, not history, so they live outside the event
 * log (ADR 0025): a queue of jobs, one subject per (account, webhook, task) so that a task's
 * deliveries to one receiver go in order and each account's jobs can be read apart from the
 * others' (ADR 0033), and a capped log of attempts per webhook.
 */
export const JOBS_STREAM = 'MATS_WEBHOOK_JOBS'
export const ATTEMPTS_STREAM = 'MATS_WEBHOOK_ATTEMPTS'
export const FAN_OUT_CONSUMER = 'mats-webhooks'
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
 * The streams, and the fan-out consumer on the task log. Registering a webhook calls this
 * before its event is stored, so the consumer exists from then on and no task event after
 * a registration can be missed, while the history before the first webhook is never read.
 */
export async function ensureWebhookStreams(jsm: JetStreamManager, options: { replicas: number; retryWindowMs: number }): Promise<void> {
  for (const config of streamConfigs(options.replicas, options.retryWindowMs)) {
    await addUnlessPresent(
      () => jsm.streams.info(config.name),
      () => jsm.streams.add(config),
    )
  }
  const filter_subjects = WEBHOOK_SOURCE_EVENTS.map(([category, type]) => eventTypeSubjects(category, type))
  await addUnlessPresent(
    () => jsm.consumers.info('MATS_TASKS', FAN_OUT_CONSUMER),
    () =>
      jsm.consumers.add('MATS_TASKS', {
        durable_name: FAN_OUT_CONSUMER,
        filter_subjects,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.New,
        // One event at a time across every webhooks process: jobs are queued in log order (ADR 0025).
        max_ack_pending: 1,
        ack_wait: 30_000 * NANOS_PER_MS,
        max_deliver: -1,
      }),
  )
  const { config } = await jsm.consumers.info('MATS_TASKS', FAN_OUT_CONSUMER)
  if (filter_subjects.some((subject) => !config.filter_subjects?.includes(subject))) await jsm.consumers.update('MATS_TASKS', FAN_OUT_CONSUMER, { filter_subjects })
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

import type { JsMsg } from '@nats-io/jetstream'
import { activeWebhooks, taskDocFromHistory, type WebhookDoc } from '../../projections/index.js'
import { taskView } from '../../src/api/views.js'
import type { RecordedEvent } from '../../src/domain/message.js'
import { Task } from '../../src/domain/tasks/task.js'
import { WEBHOOK_EVENT_OF, type WebhookEventType } from '../../src/domain/webhooks/webhook.js'
import type { Infra } from '../../src/infra/context.js'
import { decodeEvent } from '../../src/infra/nats/event-store.js'
import { jobSubject } from '../../src/infra/nats/webhook-streams.js'
import type { DeliveryJob } from './job.js'

/**
 * Turns one task event into a delivery job per subscribed webhook of its account. The
 * consumer hands out one event at a time (max_ack_pending 1), so jobs are queued in the
 * log's order, which is what keeps a task's deliveries in order (ADR 0021).
 */
export async function fanOut(infra: Infra, msg: JsMsg): Promise<void> {
  const event = decodeEvent(msg)
  const type = WEBHOOK_EVENT_OF[event.type]
  const hooks = type ? (await activeWebhooks(infra.readModels, event.accountId)).filter((hook) => subscribed(hook, type, event)) : []
  if (type && hooks.length > 0) {
    const body = JSON.stringify({ type, timestamp: event.occurredAt, data: { task: await taskAsOf(infra, event) } })
    for (const hook of hooks) {
      const job: DeliveryJob = { webhookId: hook._id, accountId: event.accountId, taskId: event.aggregateId, messageId: event.id, event: type, body }
      // A redelivered event queues nothing twice: the msg id is deduplicated by the stream.
      await infra.js.publish(jobSubject(hook._id, event.aggregateId), JSON.stringify(job), { msgID: `${event.id}.${hook._id}` })
    }
  }
  msg.ack()
}

/** A webhook hears of events after it was registered, of the types it chose. */
function subscribed(hook: WebhookDoc, type: WebhookEventType, event: RecordedEvent): boolean {
  return hook.events.includes(type) && hook.createdAt <= event.occurredAt
}

/** The task as GET /v1/tasks/{id} showed it right after this event: later events are left out. */
async function taskAsOf(infra: Infra, event: RecordedEvent) {
  const { events } = await infra.events.load(Task, { accountId: event.accountId, aggregateId: event.aggregateId }, { atLeast: event.seq })
  const doc = taskDocFromHistory(events.filter((e) => e.seq <= event.seq))
  if (!doc) throw new Error(`task ${event.aggregateId} has no TaskCreated up to ${event.seq}`)
  return taskView(doc)
}

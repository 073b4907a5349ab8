import type { JsMsg } from '@nats-io/jetstream'
import { actionDocFromHistory, activeWebhooks, taskDocFromHistory, type WebhookDoc } from '../../projections/index.js'
import { actionView } from '../../src/api/actions.js'
import { taskView } from '../../src/api/views.js'
import type { RecordedEvent } from '../../src/domain/message.js'
import { Task } from '../../src/domain/tasks/task.js'
import { Action } from '../../src/domain/actions/action.js'
import { webhookEventOf, type WebhookEventType } from '../../src/domain/webhooks/webhook.js'
import type { AppContext } from '../../src/app-context.js'
import { decodeEvent } from '../../src/infra/nats/event-store.js'
import type { WebhookQueue } from '../../src/infra/nats/webhook-queue.js'
import type { DeliveryJob } from './job.js'

/**
 * Turns one task event into a delivery job per subscribed webhook of its account. The
 * consumer hands out one event at a time (max_ack_pending 1), so jobs are queued in the
 * log's order, which is what keeps a task's deliveries in order (ADR 0025).
 */
export async function fanOut(infra: AppContext, queue: WebhookQueue, msg: JsMsg): Promise<void> {
  const event = decodeEvent(msg)
  const type = webhookEventOf(event)
  if (type) {
    // Both reads at once: one event at a time passes here for every account, so its time is everyone's latency (ADR 0027).
    const [hooks, payload] = await Promise.all([
      activeWebhooks(infra.readModels, event.accountId).then((all) => all.filter((hook) => subscribed(hook, type, event))),
      type.startsWith('action.') ? actionAsOf(infra, event) : taskAsOf(infra, event).then((task) => ({ taskId: event.aggregateId, data: { task } })),
    ])
    const body = JSON.stringify({ type, timestamp: event.occurredAt, data: payload.data })
    // A redelivered event queues nothing twice: the msg id is deduplicated by the stream. Per task: an action's deliveries queue behind its task's.
    // Each webhook has its own subjects, so their jobs are queued together; one webhook's jobs still queue in log order.
    await Promise.all(
      hooks.map((hook) => {
        const job: DeliveryJob = { webhookId: hook._id, accountId: event.accountId, taskId: payload.taskId, messageId: event.id, event: type, body }
        return queue.enqueue(job, JSON.stringify(job), `${event.id}.${hook._id}`)
      }),
    )
  }
  msg.ack()
}

/** A webhook hears of events after it was registered, of the types it chose. */
function subscribed(hook: WebhookDoc, type: WebhookEventType, event: RecordedEvent): boolean {
  return hook.events.includes(type) && hook.createdAt <= event.occurredAt
}

/** The task as GET /v1/tasks/{id} showed it right after this event: later events are left out. */
async function taskAsOf(infra: AppContext, event: RecordedEvent) {
  const { events } = await infra.events.load(Task, { accountId: event.accountId, aggregateId: event.aggregateId }, { atLeast: event.seq })
  const doc = taskDocFromHistory(events.filter((e) => e.seq <= event.seq))
  if (!doc) throw new Error(`task ${event.aggregateId} has no TaskCreated up to ${event.seq}`)
  return taskView(doc)
}

/** The action as GET /v1/tasks/{id}/actions showed it right after this event: its proposal, then its own events up to this one. */
async function actionAsOf(infra: AppContext, event: RecordedEvent): Promise<{ taskId: string; data: { action: ReturnType<typeof actionView> } }> {
  const actionId = event.type === 'TaskActionProposed' ? (event.data as { actionId: string }).actionId : event.aggregateId
  const taskId = event.type === 'TaskActionProposed' ? event.aggregateId : (event.data as { taskId: string }).taskId
  const [task, decisions] = await Promise.all([
    infra.events.load(Task, { accountId: event.accountId, aggregateId: taskId }, event.type === 'TaskActionProposed' ? { atLeast: event.seq } : {}),
    event.type === 'TaskActionProposed' ? null : infra.events.load(Action, { accountId: event.accountId, aggregateId: actionId }, { atLeast: event.seq }),
  ])
  const proposal = task.events.filter((e) => e.type === 'TaskActionProposed' && (e.data as { actionId: string }).actionId === actionId)
  const doc = actionDocFromHistory([...proposal, ...(decisions?.events ?? []).filter((e) => e.seq <= event.seq)])
  if (!doc) throw new Error(`action ${actionId} has no proposal in task ${taskId}`)
  return { taskId, data: { action: actionView(doc) } }
}

import { actionDocFromHistory, activeWebhooks, taskDocFromHistory, type WebhookDoc } from '../../projections/index.js'
import { actionView } from '../../src/api/actions.js'
import { taskView } from '../../src/api/views.js'
import type { RecordedEvent } from '../../src/domain/message.js'
import { Task } from '../../src/domain/tasks/task.js'
import { Action } from '../../src/domain/actions/action.js'
import { webhookEventOf, type WebhookEventType } from '../../src/domain/webhooks/webhook.js'
import type { AppContext } from '../../src/app-context.js'
import { eventSubjectParts } from '../../src/infra/nats/subjects.js'
import type { WebhookQueue } from '../../src/infra/nats/webhook-queue.js'
import type { DeliveryJob } from './job.js'

/** An event whose jobs could not be queued: the lane counts its failures and may give it up (fan-out-lane.ts). */
export class EventFanOutError extends Error {
  override readonly name = 'EventFanOutError'

  constructor(
    readonly event: RecordedEvent,
    cause: unknown,
  ) {
    super(`could not fan out event ${event.seq} (${event.type})`, { cause })
  }
}

/**
 * Tasks of a page fanned out at once: each is up to 20 publishes at a time (one per webhook) on
 * the process's one NATS connection, and another account's lane must not queue behind hundreds.
 */
const TASKS_AT_ONCE = 8

interface Source {
  readonly event: RecordedEvent
  readonly type: WebhookEventType
}

/**
 * Turns a page of one account's task events (in log order) into a delivery job per
 * subscribed webhook (ADR 0042). A task's events are taken one after another, so its jobs
 * queue in the log's order, which is what keeps its deliveries in order (ADR 0025); different
 * tasks side by side. The account's webhooks are read once for the page, each task's history
 * once, and each webhook is marked as having jobs once, after its jobs are stored. A job
 * stored twice (the page fanned out again after a restart) is dropped by the stream: its
 * message id is the event's and the webhook's.
 */
export async function fanOutEvents(infra: AppContext, queue: WebhookQueue, accountId: string, events: readonly RecordedEvent[]): Promise<void> {
  const sources = events.flatMap((event) => {
    const type = webhookEventOf(event)
    return type ? [{ event, type }] : []
  })
  if (sources.length === 0) return
  const hooks = await activeWebhooks(infra.readModels, accountId)
  if (hooks.length === 0) return
  const queued = new Set<string>()
  const tasks = await inTurns([...byTask(sources)], TASKS_AT_ONCE, ([taskId, ofTask]) => fanOutTask(infra, queue, { accountId, taskId }, ofTask, hooks, queued))
  // Marked even when a task failed: the jobs stored are attempted while the failed one is fanned out again.
  await Promise.all([...queued].map((webhookId) => queue.markQueued(accountId, webhookId)))
  const failed = tasks.find((result) => result.status === 'rejected')
  if (failed) throw failed.reason
}

async function fanOutTask(
  infra: AppContext,
  queue: WebhookQueue,
  key: { accountId: string; taskId: string },
  sources: readonly Source[],
  hooks: readonly WebhookDoc[],
  queued: Set<string>,
): Promise<void> {
  const history = await taskHistory(infra, key, sources)
  for (const { event, type } of sources) {
    try {
      const payload = await payloadOf(infra, key.taskId, history, { event, type })
      const body = JSON.stringify({ type, timestamp: event.occurredAt, data: payload.data })
      const subscribers = hooks.filter((hook) => subscribed(hook, type, event))
      await Promise.all(
        subscribers.map((hook) => {
          const job: DeliveryJob = { webhookId: hook._id, accountId: key.accountId, taskId: payload.taskId, messageId: event.id, event: type, body }
          queued.add(hook._id)
          return queue.store(job, JSON.stringify(job), `${event.id}.${hook._id}`)
        }),
      )
    } catch (err) {
      throw new EventFanOutError(event, err)
    }
  }
}

/** What a delivery says of its event, and the queue (task or schedule) it waits in behind the others of that queue. */
async function payloadOf(infra: AppContext, taskId: string, history: TaskHistory, { event, type }: Source): Promise<{ taskId: string; data: object }> {
  if (type.startsWith('action.')) return actionAsOf(infra, event)
  // A schedule's event as the log has it (docs/events.md), with its schedule: its deliveries queue per schedule.
  if (type.startsWith('schedule.')) {
    const data = typeof event.data === 'object' && event.data !== null ? event.data : {}
    return { taskId: event.aggregateId, data: { scheduleId: event.aggregateId, ...data } }
  }
  return { taskId, data: { task: taskAsOf(history, event) } }
}

/** Sources by the task (or schedule) they are about, each task's in log order. An action's deliveries queue behind its task's. */
function byTask(sources: readonly Source[]): Map<string, Source[]> {
  const tasks = new Map<string, Source[]>()
  for (const source of sources) {
    const { event } = source
    const taskId = eventSubjectParts(event.subject).category === 'action' ? (event.data as { taskId: string }).taskId : event.aggregateId
    tasks.set(taskId, [...(tasks.get(taskId) ?? []), source])
  }
  return tasks
}

/** A webhook hears of events after it was registered, of the types it chose. */
function subscribed(hook: WebhookDoc, type: WebhookEventType, event: RecordedEvent): boolean {
  return hook.events.includes(type) && hook.createdAt <= event.occurredAt
}

/** The task's history up to its last event in the page, read once (none when the page holds only decisions on its actions, or a schedule's events). */
async function taskHistory(infra: AppContext, key: { accountId: string; taskId: string }, sources: readonly Source[]): Promise<TaskHistory> {
  const ofTask = sources.filter(({ type }) => type.startsWith('task.'))
  const last = ofTask.at(-1)
  if (!last) return []
  try {
    return await loadTask(infra, key, last.event.seq)
  } catch (err) {
    throw new EventFanOutError(last.event, err)
  }
}

const loadTask = async (infra: AppContext, key: { accountId: string; taskId: string }, atLeast: number) =>
  (await infra.events.load(Task, { accountId: key.accountId, aggregateId: key.taskId }, { atLeast })).events
type TaskHistory = Awaited<ReturnType<typeof loadTask>>

/** The task as GET /v1/tasks/{id} showed it right after this event: later events are left out. */
function taskAsOf(history: TaskHistory, event: RecordedEvent) {
  const doc = taskDocFromHistory(history.filter((e) => e.seq <= event.seq))
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

/** `work` on every item, at most `atOnce` at a time; every outcome, in the items' order. */
async function inTurns<T>(items: readonly T[], atOnce: number, work: (item: T) => Promise<void>): Promise<PromiseSettledResult<void>[]> {
  const outcomes: PromiseSettledResult<void>[] = []
  let next = 0
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) {
      outcomes[i] = await work(items[i] as T).then(
        (value) => ({ status: 'fulfilled' as const, value }),
        (reason: unknown) => ({ status: 'rejected' as const, reason }),
      )
    }
  }
  await Promise.all(Array.from({ length: Math.min(atOnce, items.length) }, worker))
  return outcomes
}

/**
 * The events of mats for TypeScript consumers (`import type { TaskCompleted } from 'mats/events'`):
 * the TypeBox schema of each event's data, the registry of current versions and upcasters,
 * `readEventData` to bring a stored event's data up to date and check it, and the types.
 * docs/events.md tells how to consume them; docs/asyncapi.yaml is generated from these schemas.
 */
import type { AccountEvent } from '../accounts/account.js'
import type { ApiKeyEvent } from '../accounts/api-key.js'
import type { ActionEvent } from '../actions/action.js'
import type { Recorded } from '../message.js'
import type { SessionEvent } from '../sessions/session.js'
import type { ScheduleEvent } from '../schedules/schedule.js'
import type { TaskRerunsEvent } from '../tasks/reruns.js'
import type { TaskEvent } from '../tasks/task.js'
import type { WebhookEvent } from '../webhooks/webhook.js'

export * from './accounts.js'
export * from './actions.js'
export { Micros, Uuid, type EventData } from './common.js'
export { Envelope, Metadata } from './envelope.js'
export { readEventData, type ReadData } from './read.js'
export { EVENT_REGISTRY, type EventRegistry, type EventSpec, type Upcaster } from './registry.js'
export * from './schedules.js'
export * from './sessions.js'
export * from './tasks.js'
export * from './webhooks.js'

export type { EventDraft, EventEnvelope, EventMetadata, Recorded, RecordedEvent } from '../message.js'
export type { AccountBudgetChanged, AccountCreated, AccountEvent } from '../accounts/account.js'
export type { ApiKeyCreated, ApiKeyEvent, ApiKeyRevoked } from '../accounts/api-key.js'
export type { ActionApproved, ActionEvent, ActionExecuted, ActionExecutionFailed, ActionRejected } from '../actions/action.js'
export type { SessionAutonomyChanged, SessionCreated, SessionEvent, SessionFactLearned } from '../sessions/session.js'
export type {
  TaskActionProposed,
  TaskCancellationRequested,
  TaskCompleted,
  TaskCreated,
  TaskDelegated,
  TaskEvent,
  TaskFailed,
  TaskStarted,
} from '../tasks/task.js'
export type { TaskRerunCreated, TaskRerunsEvent } from '../tasks/reruns.js'
export type {
  ScheduleChanged,
  ScheduleCreated,
  ScheduleDeleted,
  ScheduleEvent,
  ScheduleFired,
  SchedulePaused,
  ScheduleResumed,
  ScheduleTickSkipped,
} from '../schedules/schedule.js'
export type { WebhookDeleted, WebhookEvent, WebhookRegistered, WebhookSecretResealed, WebhookSecretRotated } from '../webhooks/webhook.js'

/** Any event mats writes, as read from a stream: narrow it on `type`. */
export type MatsEvent = Recorded<AccountEvent | ApiKeyEvent | SessionEvent | TaskEvent | TaskRerunsEvent | ScheduleEvent | ActionEvent | WebhookEvent>

import type { TSchema } from 'typebox'
import { Account } from '../accounts/account.js'
import { ApiKey } from '../accounts/api-key.js'
import { Action } from '../actions/action.js'
import type { Aggregate, AggregateCategory, EventDraft } from '../message.js'
import { Session } from '../sessions/session.js'
import { Schedule } from '../schedules/schedule.js'
import { TaskReruns } from '../tasks/reruns.js'
import { Task } from '../tasks/task.js'
import { Webhook } from '../webhooks/webhook.js'
import { AccountBudgetChangedData, AccountCreatedData, ApiKeyCreatedData, ApiKeyRevokedData } from './accounts.js'
import { ActionApprovedData, ActionExecutedData, ActionExecutionFailedData, ActionRejectedData } from './actions.js'
import { SessionAutonomyChangedData, SessionCreatedData, SessionFactLearnedData } from './sessions.js'
import * as schedules from './schedules.js'
import * as tasks from './tasks.js'
import { WebhookDeletedData, WebhookRegisteredData, WebhookSecretResealedData, WebhookSecretRotatedData } from './webhooks.js'

/** Turns the data of version `v` into the data of version `v + 1`. */
export type Upcaster = (data: Readonly<Record<string, unknown>>) => Record<string, unknown>

/**
 * What a reader needs to know of one event type: the version writers write now, the schema
 * of its data at that version, and an upcaster from each older version to the next. Old
 * events are never rewritten (streams deny delete): they are brought up to date on read.
 */
export interface EventSpec {
  readonly category: AggregateCategory
  readonly current: number
  readonly schema: TSchema
  readonly upcast: Readonly<Record<number, Upcaster>>
}

export type EventRegistry = Readonly<Record<string, EventSpec>>

/**
 * The specs of an aggregate's events. The version is the aggregate's (what the event store
 * writes), so a bump there without an upcaster for the old version fails on the first old
 * event read, and the compiler wants a schema for every event type.
 */
function specsOf<S, E extends EventDraft>(
  aggregate: Aggregate<S, E>,
  schemas: { readonly [K in E['type']]: TSchema },
  upcasters: { readonly [K in E['type']]?: Readonly<Record<number, Upcaster>> } = {},
): Record<string, EventSpec> {
  const specs: Record<string, EventSpec> = {}
  for (const type of Object.keys(schemas) as E['type'][]) {
    specs[type] = { category: aggregate.category, current: aggregate.versions[type], schema: schemas[type], upcast: upcasters[type] ?? {} }
  }
  return specs
}

/**
 * Every event type mats writes. There is no upcaster yet: every type is at version 1. The two
 * fields added later without a bump (SessionCreated.autonomy, TaskCompleted.learnedFacts) stay
 * optional in the v1 schemas: old and new events alike are v1, so no upcaster can tell which
 * lacks them, and a bump to default them would change what is written (docs/events.md).
 */
export const EVENT_REGISTRY: EventRegistry = {
  ...specsOf(Account, { AccountCreated: AccountCreatedData, AccountBudgetChanged: AccountBudgetChangedData }),
  ...specsOf(ApiKey, { ApiKeyCreated: ApiKeyCreatedData, ApiKeyRevoked: ApiKeyRevokedData }),
  ...specsOf(Session, { SessionCreated: SessionCreatedData, SessionAutonomyChanged: SessionAutonomyChangedData, SessionFactLearned: SessionFactLearnedData }),
  ...specsOf(Task, {
    TaskCreated: tasks.TaskCreatedData,
    TaskStarted: tasks.TaskStartedData,
    TaskActionProposed: tasks.TaskActionProposedData,
    TaskDelegated: tasks.TaskDelegatedData,
    TaskCancellationRequested: tasks.TaskCancellationRequestedData,
    TaskCompleted: tasks.TaskCompletedData,
    TaskFailed: tasks.TaskFailedData,
  }),
  ...specsOf(TaskReruns, { TaskRerunCreated: tasks.TaskRerunCreatedData }),
  ...specsOf(Schedule, {
    ScheduleCreated: schedules.ScheduleCreatedData,
    ScheduleChanged: schedules.ScheduleChangedData,
    SchedulePaused: schedules.SchedulePausedData,
    ScheduleResumed: schedules.ScheduleResumedData,
    ScheduleDeleted: schedules.ScheduleDeletedData,
    ScheduleFired: schedules.ScheduleFiredData,
    ScheduleTickSkipped: schedules.ScheduleTickSkippedData,
  }),
  ...specsOf(Action, { ActionApproved: ActionApprovedData, ActionRejected: ActionRejectedData, ActionExecuted: ActionExecutedData, ActionExecutionFailed: ActionExecutionFailedData }),
  ...specsOf(Webhook, {
    WebhookRegistered: WebhookRegisteredData,
    WebhookDeleted: WebhookDeletedData,
    WebhookSecretRotated: WebhookSecretRotatedData,
    WebhookSecretResealed: WebhookSecretResealedData,
  }),
}

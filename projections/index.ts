import type { Projection } from './engine/projection.js'
import { accountsProjection } from './read-models/accounts.js'
import { actionsProjection } from './read-models/actions.js'
import { apiKeysProjection } from './read-models/api-keys.js'
import { accountSpendProjection } from './read-models/account-spend.js'
import { accountUsageProjection } from './read-models/account-usage.js'
import { schedulesProjection } from './read-models/schedules.js'
import { sessionsProjection } from './read-models/sessions.js'
import { taskCountsProjection } from './read-models/task-counts.js'
import { tasksProjection } from './read-models/tasks.js'
import { webhooksProjection } from './read-models/webhooks.js'

export { ReadModels } from './engine/read-models.js'
export { ProjectionRunner } from './engine/runner.js'
export { Projector } from './engine/projector.js'
export { PartitionLeases } from './engine/leases.js'
export { PARTITIONS, partitionOf } from './engine/partitions.js'
export { rebuildProjections, type RebuildProgress } from './engine/rebuild.js'
export { projectInline } from './engine/inline.js'
export type { Projection, Stored } from './engine/projection.js'
export { ProjectionProgress } from './engine/progress.js'
export { LiveView } from './engine/live-view.js'
export { watchProjectionLag } from './engine/lag-metrics.js'
export { accountsProjection, actionsProjection, apiKeysProjection, sessionsProjection, tasksProjection, taskCountsProjection, accountSpendProjection, accountUsageProjection, webhooksProjection }
export type { ActionDoc } from './read-models/actions.js'
export type { AccountDoc } from './read-models/accounts.js'
export type { ApiKeyDoc } from './read-models/api-keys.js'
export { sessionDocFromHistory, type SessionDoc } from './read-models/sessions.js'
export { taskDocFromHistory, type TaskDoc } from './read-models/tasks.js'
export { actionDocFromHistory } from './read-models/actions.js'
export { spendId, type AccountSpendDoc } from './read-models/account-spend.js'
export { lastDayOf, type AccountUsageDoc } from './read-models/account-usage.js'
export type { TaskCountsDoc } from './read-models/task-counts.js'
export type { WebhookDoc } from './read-models/webhooks.js'
export { activeWebhooks, ownedWebhook } from './queries/webhooks.js'
export { activeSchedules, countLiveSchedules, listSchedules, ownedSchedule } from './queries/schedules.js'
export { schedulesProjection, scheduleDocFromHistory, scheduleStateOf, RECENT_FIRINGS, type ScheduleDoc, type Firing } from './read-models/schedules.js'

export const ALL_PROJECTIONS: readonly Projection[] = [
  accountsProjection,
  apiKeysProjection,
  sessionsProjection,
  tasksProjection,
  taskCountsProjection,
  accountSpendProjection,
  accountUsageProjection,
  actionsProjection,
  webhooksProjection,
  schedulesProjection,
]

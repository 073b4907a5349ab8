import type { Projection } from './engine/projection.js'
import { accountsProjection } from './read-models/accounts.js'
import { apiKeysProjection } from './read-models/api-keys.js'
import { accountSpendProjection } from './read-models/account-spend.js'
import { sessionsProjection } from './read-models/sessions.js'
import { tasksProjection } from './read-models/tasks.js'

export { ReadModels } from './engine/read-models.js'
export { ProjectionRunner } from './engine/runner.js'
export { rebuildProjections, type RebuildProgress } from './engine/rebuild.js'
export { projectInline } from './engine/inline.js'
export type { Projection, Stored } from './engine/projection.js'
export { ProjectionProgress } from './engine/progress.js'
export { LiveView } from './engine/live-view.js'
export { accountsProjection, apiKeysProjection, sessionsProjection, tasksProjection, accountSpendProjection }
export type { AccountDoc } from './read-models/accounts.js'
export type { ApiKeyDoc } from './read-models/api-keys.js'
export { sessionDocFromHistory, type SessionDoc } from './read-models/sessions.js'
export { taskDocFromHistory, type TaskDoc } from './read-models/tasks.js'
export { spendId, type AccountSpendDoc } from './read-models/account-spend.js'

export const ALL_PROJECTIONS: readonly Projection[] = [accountsProjection, apiKeysProjection, sessionsProjection, tasksProjection, accountSpendProjection]

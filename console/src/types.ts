import type { components } from '../../packages/client/src/schema.js'

/** The API's own types (docs/openapi.json, as the typed client has them): the console uses only the public API. */
type Schemas = components['schemas']
export type Task = Schemas['Task']
export type TaskStatus = Task['status']
export type Action = Schemas['Action']
export type Agent = Schemas['Agent']
export type Session = Schemas['Session']
export type Webhook = Schemas['Webhook']
export type Delivery = Schemas['Delivery']
export type Pagination = Schemas['Pagination']
export type ListTasks = Schemas['ListTasksResponse']
export type TaskEventItem = Schemas['TaskEventStreamItem']['event']
export const TASK_STATUSES: readonly TaskStatus[] = ['pending', 'running', 'completed', 'failed']

/** What GET /console/api/session says about the signed-in console. */
export interface ConsoleSession {
  readonly accountId: string
  readonly keyId: string
  readonly csrfToken: string
  readonly idleTimeoutMs: number
}
export type Usage = Schemas['Usage']
export type TaskCounts = Schemas['TaskCounts']
export type Autonomy = Session['autonomy']
export type BatchResult = Schemas['CreateTaskBatchResponse']['results'][number]

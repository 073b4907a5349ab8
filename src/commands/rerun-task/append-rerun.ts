import { decideRecordRerun, TaskReruns } from '../../domain/tasks/reruns.js'
import { decideCreateTask, Task, type TaskCreated, type TaskEvent, type TaskState } from '../../domain/tasks/task.js'
import { streamOf } from '../../infra/nats/subjects.js'
import type { CommandContext } from '../context.js'
import type { Executed, Issuer } from '../execute.js'

/**
 * The re-run's TaskCreated and the original's TaskRerunCreated, as one atomic batch: both
 * links are stored, or neither (invariant 5). The new task is guarded as new; the re-runs
 * of the original are an append-only record, unguarded, so that re-runs racing each other
 * never conflict.
 */
export async function appendRerun(
  infra: CommandContext,
  accountId: string,
  taskId: string,
  created: TaskCreated['data'] & { readonly rerunOf: string },
  issuer: Issuer,
): Promise<Executed<TaskState, TaskEvent>> {
  const drafts = decideCreateTask(created, Task.initialState)
  const link = decideRecordRerun({ rerunTaskId: taskId }, TaskReruns.initialState)
  const metadata = { correlationId: issuer.correlationId, causationId: null, keyId: issuer.keyId }
  const [appended] = await infra.events.appendWithRecord(
    Task,
    { key: { accountId, aggregateId: taskId }, drafts, expectedVersion: 0 },
    { aggregate: TaskReruns, key: { accountId, aggregateId: created.rerunOf }, drafts: link },
    { metadata, now: infra.clock() },
  )
  const state = appended.reduce((s, e) => Task.evolve(s, e as unknown as TaskEvent), Task.initialState)
  await infra.projectInline(streamOf('task'), taskId, appended)
  return { accountId, state, appended, history: appended }
}

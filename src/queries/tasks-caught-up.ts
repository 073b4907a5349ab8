import { tasksProjection } from '../../projections/index.js'
import type { Infra } from '../infra/context.js'

/** How long a list waits for the tasks read model to reach what the log held when it was asked. */
const CATCH_UP_MS = 2000

/**
 * Waits until the tasks read model has applied, for the account's partition, everything the
 * task stream held when the list was asked, so that a list issued after a 201 (on any API
 * process) shows that task: read-your-writes for lists without a read-model write per
 * command. After `CATCH_UP_MS` the list is served as it is.
 */
export async function awaitTasksReadModel(infra: Infra, accountId: string): Promise<void> {
  const last = await infra.events.head('task')
  if (last === 0 || (await infra.progress.waitFor(tasksProjection, accountId, last, CATCH_UP_MS))) return
  infra.log.warn({ accountId, last }, 'tasks read model is behind the log; list served as it is')
}

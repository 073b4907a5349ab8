import { tasksProjection, type Projection, type ProjectionProgress } from '../../projections/index.js'
import type { Infra } from '../infra/context.js'
import { settleWithin } from '../infra/deadline.js'

/** How long a list waits for a read model to reach what the log held when it was asked. */
const CATCH_UP_MS = 2000
/** A catch-up longer than this (projection lag p50 is ~90 ms) checks the store meanwhile: one ping, only on this slow path. */
const LAG_BEFORE_STORE_CHECK_MS = 250

/**
 * Waits until a read model of the task stream has applied, for the account's partition,
 * everything the stream held when the list was asked, so that a list issued after a 201
 * (on any API process) shows that write: read-your-writes for lists without a read-model
 * write per command. After `CATCH_UP_MS` the list is served as it is.
 */
/** What waiting on a read model takes: the connections and this process's view of the projectors' progress. */
export type CatchUpContext = Infra & { readonly progress: ProjectionProgress }

export async function awaitTaskStreamReadModel(infra: CatchUpContext, projection: Projection, accountId: string): Promise<void> {
  const last = await infra.events.head('task')
  if (last === 0) return
  const caughtUp = infra.progress.waitFor(projection, accountId, last, CATCH_UP_MS)
  if ((await settleWithin(caughtUp, LAG_BEFORE_STORE_CHECK_MS)).outcome === 'late') {
    // A read model that lags may lag because its store is gone: then the list is refused now
    // (503 within the 2 s of invariant 11), not after the whole catch-up wait and the query's own timeout.
    await Promise.all([caughtUp, infra.db.command({ ping: 1 })])
  }
  if (await caughtUp) return
  infra.log.warn({ accountId, last, projection: projection.name }, 'read model is behind the log; served as it is')
}

export const awaitTasksReadModel = (infra: CatchUpContext, accountId: string): Promise<void> => awaitTaskStreamReadModel(infra, tasksProjection, accountId)

import { JetStreamApiCodes, JetStreamApiError, type ConsumerInfo } from '@nats-io/jetstream'
import type { AppContext } from '../../src/app-context.js'
import { DISPATCH_ROOT, DISPATCH_STREAM, dispatchConsumer, dispatchSubject } from '../../src/infra/nats/dispatch-stream.js'

/** Null for a stream or consumer that does not exist; any other error is thrown. */
const unlessMissing = (err: unknown): null => {
  const missing = err instanceof JetStreamApiError && (err.code === JetStreamApiCodes.StreamNotFound || err.code === JetStreamApiCodes.ConsumerNotFound)
  if (missing) return null
  throw err
}

/** The durable that dispatches one account's tasks (ADR 0052), as the server has it; null before the account's first turn. */
export async function accountDispatchConsumer(infra: AppContext, accountId: string): Promise<ConsumerInfo | null> {
  return infra.jsm.consumers.info(DISPATCH_STREAM, dispatchConsumer(accountId)).catch(unlessMissing)
}

/** Every dispatch durable (none when the dispatch stream was never made). */
export async function dispatchConsumers(infra: AppContext): Promise<ConsumerInfo[]> {
  const exists = await infra.jsm.streams.info(DISPATCH_STREAM).catch(unlessMissing)
  return exists ? infra.jsm.consumers.list(DISPATCH_STREAM).next() : []
}

/** The account's TaskCreated the dispatch stream still holds: not yet acknowledged nor terminated by a worker (a work queue). */
export async function dispatchMessagesOf(infra: AppContext, accountId: string): Promise<number> {
  const info = await infra.jsm.streams.info(DISPATCH_STREAM, { subjects_filter: `${DISPATCH_ROOT}.*` }).catch(unlessMissing)
  return info?.state.subjects?.[dispatchSubject(accountId)] ?? 0
}

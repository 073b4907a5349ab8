import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream'

/**
 * A publish whose expected last (subject) sequence did not hold: another writer got there
 * first. On a replicated stream the leader may also answer "wrong last sequence: unknown"
 * (10164) while it has proposals in flight for the subject; that is the same outcome for the
 * caller (decide again on a fresh read), not an error (found by the R3 identical-brief test).
 */
export function isWrongLastSequence(err: unknown): boolean {
  return err instanceof JetStreamApiError && (err.code === JetStreamApiCodes.StreamWrongLastSequence || err.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
}

const BATCH_DUPLICATE_MESSAGE_ID = 10201

/**
 * An atomic batch holding a message id the stream stored within its duplicate window: some
 * of these events are in the log already, so the aggregate moved; nothing of the batch is stored.
 */
export function isDuplicateInBatch(err: unknown): boolean {
  return err instanceof JetStreamApiError && err.code === BATCH_DUPLICATE_MESSAGE_ID
}

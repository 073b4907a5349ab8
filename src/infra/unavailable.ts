import { JetStreamApiError } from '@nats-io/jetstream'
import { errors as nats } from '@nats-io/transport-node'
import { MongoNetworkError, MongoNotConnectedError, MongoOperationTimeoutError, MongoServerSelectionError, MongoTopologyClosedError } from 'mongodb'
import { EventStoreUnavailableError } from './nats/event-store-errors.js'

type ErrorClass = abstract new (...args: never[]) => Error

/** What NATS and MongoDB throw when they cannot be reached in time, as opposed to a refusal or a bug. */
const OUT_OF_REACH: readonly ErrorClass[] = [
  EventStoreUnavailableError,
  nats.TimeoutError,
  nats.NoRespondersError,
  nats.ClosedConnectionError,
  nats.ConnectionError,
  nats.RequestError,
  nats.DrainingConnectionError,
  MongoNetworkError,
  MongoServerSelectionError,
  MongoNotConnectedError,
  MongoTopologyClosedError,
  MongoOperationTimeoutError,
]

const SERVICE_UNAVAILABLE = 503

/**
 * Whether `err`, or what caused it, says that a dependency is out of reach for now: the
 * request may succeed if retried later (503 with Retry-After), where anything else is a bug.
 */
export function isDependencyUnavailable(err: unknown): boolean {
  for (let cause = err, depth = 0; cause instanceof Error && depth < 8; cause = cause.cause, depth++) {
    if (OUT_OF_REACH.some((type) => cause instanceof type)) return true
    // "JetStream system temporarily unavailable", a stream without a leader during an election.
    if (cause instanceof JetStreamApiError && cause.status === SERVICE_UNAVAILABLE) return true
  }
  return false
}

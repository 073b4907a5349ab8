import { JetStreamApiError } from '@nats-io/jetstream'
import { errors as nats } from '@nats-io/transport-node'
import {
  MongoClientClosedError,
  MongoError,
  MongoErrorLabel,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoOperationTimeoutError,
  MongoServerClosedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
} from 'mongodb'
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
  // MongoNetworkTimeoutError and the pool's MongoPoolClearedError are MongoNetworkErrors.
  MongoNetworkError,
  MongoServerSelectionError,
  MongoNotConnectedError,
  MongoTopologyClosedError,
  MongoOperationTimeoutError,
  // The server (or the whole client) closed while an operation was on its way to it.
  MongoServerClosedError,
  MongoClientClosedError,
]

/**
 * The driver's pool errors it does not export: a checkout from a pool closed with its server,
 * or one that waited past waitQueueTimeoutMS. Known by the `name` the driver gives them.
 */
const POOL_ERROR_NAMES = new Set(['MongoPoolClosedError', 'MongoWaitQueueTimeoutError'])

/**
 * Labels the driver or the server put on an error that a later try may get past: a write
 * worth retrying (a network error, a node stepping down or shutting down), a pool cleared,
 * a server shedding load. HandshakeError is not one: a refused login carries it too.
 */
const RETRY_LABELS = [MongoErrorLabel.RetryableWriteError, MongoErrorLabel.PoolRequestedRetry, MongoErrorLabel.ResetPool, MongoErrorLabel.SystemOverloadedError]

/**
 * A server's answer that it cannot serve now: the codes the retryable-reads specification
 * retries (a read's error carries no label), as the driver lists them (RETRYABLE_READ_ERROR_CODES).
 */
const NOT_NOW_CODES = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  89, // NetworkTimeout
  91, // ShutdownInProgress
  134, // ReadConcernMajorityNotAvailableYet
  189, // PrimarySteppedDown
  262, // ExceededTimeLimit
  9001, // SocketException
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
])

/**
 * A socket's own error, thrown as is. The driver (7.x) lets one escape unwrapped when it
 * writes a command to a connection the server has just closed: Connection.writeCommand waits
 * for 'drain' and rethrows the socket's 'error' ("This socket has been ended by the other
 * party", EPIPE), where every other path wraps it in a MongoNetworkError. Seen in the
 * MongoDB-outage fault test. Only unwrapped: an outside service's failure comes wrapped
 * (fetch's TypeError, an AgentRunError) and stays what it is.
 */
const BROKEN_SOCKET_CODES = new Set(['EPIPE', 'ECONNRESET'])

const SERVICE_UNAVAILABLE = 503

/**
 * Whether `err`, or what caused it, says that a dependency is out of reach for now: the
 * request may succeed if retried later (503 with Retry-After), where anything else is a bug.
 */
export function isDependencyUnavailable(err: unknown): boolean {
  if (isBrokenSocket(err)) return true
  for (let cause = err, depth = 0; cause instanceof Error && depth < 8; cause = cause.cause, depth++) {
    if (OUT_OF_REACH.some((type) => cause instanceof type)) return true
    if (cause instanceof MongoError && isMongoNotNow(cause)) return true
    // "JetStream system temporarily unavailable", a stream without a leader during an election.
    if (cause instanceof JetStreamApiError && cause.status === SERVICE_UNAVAILABLE) return true
  }
  return false
}

function isMongoNotNow(err: MongoError): boolean {
  if (POOL_ERROR_NAMES.has(err.name)) return true
  if (RETRY_LABELS.some((label) => err.hasErrorLabel(label))) return true
  return err instanceof MongoServerError && typeof err.code === 'number' && NOT_NOW_CODES.has(err.code)
}

function isBrokenSocket(err: unknown): boolean {
  if (!(err instanceof Error) || err instanceof MongoError || !('code' in err)) return false
  return typeof err.code === 'string' && BROKEN_SOCKET_CODES.has(err.code)
}

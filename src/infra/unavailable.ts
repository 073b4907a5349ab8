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

/**
 * Which errors mean "NATS or MongoDB is out of reach for now, retry later" (503 with
 * Retry-After), as opposed to a refusal or a bug (kept as they are, a 500 for a bug). Each
 * entry says why. Checked against @nats-io/nats-core's lib/errors.js and the mongodb driver's
 * lib/error.js and lib/cmap/errors.js (7.x); test/unit/unavailable.test.ts throws the driver's
 * own errors at it.
 */
interface OutOfReach {
  readonly matches: (err: Error) => boolean
  readonly because: string
}

type ErrorClass = abstract new (...args: never[]) => Error

const SERVICE_UNAVAILABLE = 503

const thrownAs = (type: ErrorClass, because: string): OutOfReach => ({ matches: (err) => err instanceof type, because })

/** The driver's pool errors, which its index does not export: known by the `name` it gives them. */
const poolErrorNamed = (name: string, because: string): OutOfReach => ({ matches: (err) => err instanceof MongoError && err.name === name, because })

const labelled = (label: string, because: string): OutOfReach => ({ matches: (err) => err instanceof MongoError && err.hasErrorLabel(label), because })

/** A server's answer that it cannot serve now, by code (a read's error carries no label). */
const serverCode = (code: number, because: string): OutOfReach => ({ matches: (err) => err instanceof MongoServerError && err.code === code, because })

/**
 * A JetStream publish that nobody answered (its no-responders), which nats.js throws as
 * `JetStreamNotEnabled`, a class its package does not export: known by its name.
 */
export const isUnansweredPublish = (err: unknown): boolean => err instanceof Error && err.name === 'JetStreamNotEnabled'

const NATS: readonly OutOfReach[] = [
  thrownAs(EventStoreUnavailableError, "our event store's own: NATS did not answer a read or an append in time (an append in doubt is one)"),
  thrownAs(nats.TimeoutError, 'a request or JetStream API call got no answer within its timeout'),
  thrownAs(nats.NoRespondersError, 'nobody listens on the subject: JetStream, or the stream, is not there now'),
  { matches: isUnansweredPublish, because: 'a JetStream publish nobody answered: the stream has no leader yet (a cluster starting, an election)' },
  thrownAs(nats.RequestError, 'a request that failed on its way: it wraps a timeout, no responders, a closed connection or a cancellation'),
  thrownAs(nats.ConnectionError, 'the connection failed or could not be made'),
  thrownAs(nats.ClosedConnectionError, 'the connection is closed: the client gave up reconnecting, or the process is stopping'),
  thrownAs(nats.DrainingConnectionError, 'the connection is draining: the process is stopping'),
  {
    matches: (err) => err instanceof JetStreamApiError && err.status === SERVICE_UNAVAILABLE,
    because: '"JetStream system temporarily unavailable": a stream without a leader during an election',
  },
]

const MONGODB: readonly OutOfReach[] = [
  thrownAs(MongoNetworkError, 'a connection closed, reset or timed out; MongoNetworkTimeoutError and the pool-cleared error (MongoPoolClearedError) are ones too'),
  thrownAs(MongoServerSelectionError, 'no server answered within serverSelectionTimeoutMS'),
  thrownAs(MongoNotConnectedError, 'the client is not connected, yet or any more'),
  thrownAs(MongoTopologyClosedError, 'the client closed while the operation waited for a server'),
  thrownAs(MongoOperationTimeoutError, "the operation's own time limit (timeoutMS) ran out"),
  thrownAs(MongoServerClosedError, 'the server closed while an operation was on its way to it'),
  thrownAs(MongoClientClosedError, 'the client closed while an operation held one of its connections'),
  poolErrorNamed('MongoPoolClosedError', 'a connection asked of a pool closed with its server'),
  poolErrorNamed('MongoWaitQueueTimeoutError', 'no connection of the pool came free within waitQueueTimeoutMS'),
  // HandshakeError is not one: a refused login carries it too. ResetPool is put on it all the
  // same when it meets an operation (Server.handleError), so such a refusal answers 503.
  labelled(MongoErrorLabel.RetryableWriteError, 'a write that a later try may get through: a network error, a node stepping down or shutting down'),
  labelled(MongoErrorLabel.PoolRequestedRetry, 'the pool was cleared under the operation, which asks to be tried again'),
  labelled(MongoErrorLabel.ResetPool, "the driver clears the server's pool: a network error or a node shutting down"),
  labelled(MongoErrorLabel.SystemOverloadedError, 'the server sheds load'),
  // The codes the driver retries a read on (RETRYABLE_READ_ERROR_CODES, as the retryable-reads specification lists them).
  serverCode(6, 'HostUnreachable: the server could not reach another node'),
  serverCode(7, 'HostNotFound: the server could not resolve another node'),
  serverCode(89, 'NetworkTimeout: between the server and another node'),
  serverCode(91, 'ShutdownInProgress: the server is shutting down'),
  serverCode(134, 'ReadConcernMajorityNotAvailableYet: a node still starting'),
  serverCode(189, 'PrimarySteppedDown: an election is under way'),
  serverCode(262, 'ExceededTimeLimit: the server ran out of time for it'),
  serverCode(9001, 'SocketException: a socket of the server failed'),
  serverCode(10107, 'NotWritablePrimary: the node is no longer the primary'),
  serverCode(11600, 'InterruptedAtShutdown: the server stopped it to shut down'),
  serverCode(11602, 'InterruptedDueToReplStateChange: a change of primary stopped it'),
  serverCode(13435, 'NotPrimaryNoSecondaryOk: the node is no longer the primary'),
  serverCode(13436, 'NotPrimaryOrSecondary: the node is recovering'),
]

const OUT_OF_REACH: readonly OutOfReach[] = [...NATS, ...MONGODB]

/**
 * A socket's own error, thrown as is. The driver (7.x) lets one escape unwrapped when it
 * writes a command to a connection the server has just closed: Connection.writeCommand waits
 * for 'drain' and rethrows the socket's 'error' ("This socket has been ended by the other
 * party", EPIPE), where every other path wraps it in a MongoNetworkError. Seen in the
 * MongoDB-outage fault test. Only unwrapped: an outside service's failure comes wrapped
 * (fetch's TypeError, an AgentRunError) and stays what it is.
 */
const BROKEN_SOCKET_CODES = new Set(['EPIPE', 'ECONNRESET'])

/** How deep a chain of causes is followed: a cycle of causes must not loop. */
const MAX_CAUSES = 8

/**
 * Whether `err`, or what caused it, says that a dependency is out of reach for now: the
 * request may succeed if retried later (503 with Retry-After), where anything else is a bug.
 */
export function isDependencyUnavailable(err: unknown): boolean {
  if (isBrokenSocket(err)) return true
  for (let cause = err, depth = 0; cause instanceof Error && depth < MAX_CAUSES; cause = cause.cause, depth++) {
    const error = cause
    if (OUT_OF_REACH.some((entry) => entry.matches(error))) return true
  }
  return false
}

function isBrokenSocket(err: unknown): boolean {
  if (!(err instanceof Error) || err instanceof MongoError || !('code' in err)) return false
  return typeof err.code === 'string' && BROKEN_SOCKET_CODES.has(err.code)
}

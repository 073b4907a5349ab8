import { JetStreamApiError, type ConsumerConfig, type JetStreamManager } from '@nats-io/jetstream'
import { errors as nats } from '@nats-io/transport-node'
import { isUnansweredPublish } from '../unavailable.js'
import { whileUnreachable } from '../while-unreachable.js'

/**
 * How long a start may wait for NATS to create or look up one stream, bucket or consumer.
 * Generous on purpose: a start serves no client yet, and every process of a deployment
 * provisions at once (startup-race.test.ts starts eight in one process on a busy machine).
 */
export const PROVISION_DEADLINE_MS = 60_000

/** NATS did not answer a provisioning request before the start's deadline. */
export class ProvisioningTimeoutError extends Error {
  override readonly name = 'ProvisioningTimeoutError'
}

/** A cluster kept refusing a provisioning request until the start's deadline (in its own words). */
export class ProvisioningRefusedError extends Error {
  override readonly name = 'ProvisioningRefusedError'
}

export interface ProvisionOptions {
  readonly deadlineMs?: number
  /** Told of each request that timed out and is about to be asked again (a log line). */
  readonly onRetry?: (what: string, attempt: number) => void
}

/**
 * Runs `request` (the creation or lookup of a stream, a KV bucket or a consumer) until it
 * answers. Each request times out after NATS_TIMEOUT_MS, which is sized for answering
 * clients (invariant 11), not for a server busy creating the streams of several processes
 * starting at once: it goes on and creates what was asked after the client stopped
 * waiting. Creating these is idempotent (the same config is accepted twice), so a request
 * that timed out is simply asked again (whileUnreachable's pauses), until the deadline; so is
 * one a cluster that is still forming refuses (its meta leader does not know every peer yet).
 * Any other error is the caller's to handle.
 */
export async function provisioned<T>(what: string, request: () => Promise<T>, options: ProvisionOptions = {}): Promise<T> {
  const forMs = options.deadlineMs ?? PROVISION_DEADLINE_MS
  let attempts = 1
  const onRetry = (_: unknown, attempt: number) => {
    attempts++
    options.onRetry?.(what, attempt + 1)
  }
  try {
    return await whileUnreachable(request, { forMs, retryable: (err) => notAnsweredYet(err) || clusterForming(err), onRetry })
  } catch (err) {
    const asked = `asked ${attempts} times over ${forMs} ms`
    if (clusterForming(err)) throw new ProvisioningRefusedError(`NATS refused to ${what}: ${err.message} (${asked})`, { cause: err })
    if (!notAnsweredYet(err)) throw err
    throw new ProvisioningTimeoutError(`NATS did not answer in time to ${what} (${asked})`, { cause: err })
  }
}

/** A timeout, or a publish to a stream that has no leader yet (a cluster's new R3 bucket): asked again. */
const notAnsweredYet = (err: unknown): boolean => err instanceof nats.TimeoutError || isUnansweredPublish(err)

/**
 * What nats-server answers while a cluster's servers are still reporting to a new meta leader
 * (JSClusterNotAvailErr, JSInsufficientResourcesErr, JSClusterNoPeersErrF). Each can also last:
 * a cluster too small for NATS_STREAM_REPLICAS keeps saying "no suitable peers", an account at
 * its limits "insufficient resources"; past the deadline they are thrown in the server's words.
 */
const CLUSTER_FORMING_CODES = new Set([
  10008, // JetStream system temporarily unavailable
  10023, // insufficient resources
  10005, // no suitable peers for placement
])

const clusterForming = (err: unknown): err is JetStreamApiError => err instanceof JetStreamApiError && CLUSTER_FORMING_CODES.has(err.code)

/** A durable pull consumer's settings, as mats creates them; `ack_wait` may change between versions. */
export interface DurableConsumerConfig extends Partial<ConsumerConfig> {
  readonly durable_name: string
  readonly ack_wait: number
}

/**
 * Makes sure the durable consumer exists with this code's `ack_wait`, safe from every process at
 * once: a creation that fails (another process made it a moment ago, with the same settings)
 * falls back to updating `ack_wait`. `what` names it in a provisioning error.
 */
export async function ensureDurableConsumer(jsm: JetStreamManager, stream: string, config: DurableConsumerConfig, what: string): Promise<void> {
  const name = config.durable_name
  const existing = await provisioned(`look up ${what}`, () => jsm.consumers.info(stream, name)).catch(() => null)
  const ackWait = { ack_wait: config.ack_wait }
  if (!existing) await provisioned(`create ${what}`, () => jsm.consumers.add(stream, config)).catch(() => jsm.consumers.update(stream, name, ackWait))
  else if (existing.config.ack_wait !== config.ack_wait) await provisioned(`update ${what}`, () => jsm.consumers.update(stream, name, ackWait))
}

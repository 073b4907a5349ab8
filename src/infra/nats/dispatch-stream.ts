import {
  AckPolicy,
  DiscardPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  RetentionPolicy,
  StorageType,
  type JetStreamManager,
  type StreamConfig,
  type StreamInfo,
  type StreamSource,
} from '@nats-io/jetstream'
import type { NatsConnection } from '@nats-io/transport-node'
import { provisioned } from './provisioning.js'
import { eventTypeSubjects, streamOf } from './subjects.js'

/**
 * The work queue of tasks to start, keyed by account (ADR 0052): the server sources every
 * TaskCreated of the task stream into it, with the subject `mats-dispatch.<account>`, so its
 * per-subject state says which accounts have tasks waiting (or running, unacknowledged) and
 * each account gets its own durable consumer. Derived state: the log stays the truth.
 */
export const DISPATCH_STREAM = 'MATS_DISPATCH'
export const DISPATCH_ROOT = 'mats-dispatch'
const TASKS = streamOf('task')
const CREATED = eventTypeSubjects('task', 'TaskCreated')

export function dispatchSubject(accountId: string): string {
  return `${DISPATCH_ROOT}.${accountId}`
}

/** The durable consumer shared by every worker for one account's tasks. */
export function dispatchConsumer(accountId: string): string {
  return `${DISPATCH_ROOT}-${accountId}`
}

/**
 * How long a worker's pull waits for an account's tasks; the doorbell keeps quiet for half of
 * it after ringing (dispatch-doorbell.ts, ADR 0064).
 */
export const DISPATCH_PULL_EXPIRES_MS = 1000

function configFor(replicas: number, startSeq: number): Partial<StreamConfig> & { name: string } {
  return {
    name: DISPATCH_STREAM,
    description: 'mats task dispatch: every TaskCreated, by account, until a worker acknowledges it (its task ended)',
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    discard: DiscardPolicy.Old,
    max_msgs: -1,
    max_bytes: -1,
    num_replicas: replicas,
    sources: [{ name: TASKS, opt_start_seq: startSeq, subject_transforms: [{ src: CREATED, dest: `${DISPATCH_ROOT}.{{wildcard(1)}}` }] }],
  }
}

/**
 * Creates the dispatch stream when missing; safe from every worker at once. Its replicas are
 * the task stream's setting. `fromLogEnd`: tasks already in the log are queued elsewhere (an
 * upgrade from the single `mats-worker` consumer, which keeps delivering them), so only
 * TaskCreated stored from now on are sourced; otherwise every TaskCreated of the log is.
 */
export async function ensureDispatchStream(jsm: JetStreamManager, replicas: number, fromLogEnd: boolean): Promise<OpenedDispatchStream> {
  const existing = await lookUp(jsm)
  if (existing) return { created: await startWithinLog(jsm, existing) }
  const tasks = await provisioned(`look up stream ${TASKS}`, () => jsm.streams.info(TASKS))
  try {
    const made = await provisioned(`create stream ${DISPATCH_STREAM}`, () => jsm.streams.add(configFor(replicas, fromLogEnd ? tasks.state.last_seq + 1 : 1)))
    return { created: made.created }
  } catch (err) {
    // Another worker created it between our lookup and add.
    if (!(err instanceof JetStreamApiError && err.code === STREAM_NAME_IN_USE)) throw err
    const other = await lookUp(jsm)
    if (!other) throw err
    return { created: other.created }
  }
}

/**
 * A source start past the task stream's end (the log restored from an older backup beside a
 * dispatch stream that outlived it: ADR 0068) would skip the tasks created up to it: it goes
 * back to 1, and the workers judge the restored tasks once more. Returns the stream's `created`.
 */
async function startWithinLog(jsm: JetStreamManager, dispatch: StreamInfo): Promise<string> {
  const source = onlySource(dispatch)
  // A start at 1 (or none) is within any log: the task stream is read only for a start further on.
  if (!source || (source.opt_start_seq ?? 0) <= 1) return dispatch.created
  const tasks = await provisioned(`look up stream ${TASKS}`, () => jsm.streams.info(TASKS))
  if ((source.opt_start_seq ?? 0) <= tasks.state.last_seq + 1) return dispatch.created
  const moved = await provisioned(`move stream ${DISPATCH_STREAM}'s source back`, () => jsm.streams.update(DISPATCH_STREAM, { sources: [{ ...source, opt_start_seq: 1 }] }))
  return moved.created
}

/** Which dispatch stream a worker opened: one deleted and made again is another (its `created` differs). */
export interface OpenedDispatchStream {
  readonly created: string
}

/** The dispatch stream's one source, the task stream's TaskCreated; none for a stream configured otherwise (by hand), which is left alone. */
function onlySource(dispatch: StreamInfo): StreamSource | undefined {
  const [source, ...others] = dispatch.config.sources ?? []
  return others.length > 0 ? undefined : source
}

async function lookUp(jsm: JetStreamManager): Promise<StreamInfo | null> {
  return provisioned(`look up stream ${DISPATCH_STREAM}`, () => jsm.streams.info(DISPATCH_STREAM)).catch((err: unknown) => {
    if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound) return null
    throw err
  })
}

/**
 * Moves where the dispatch stream's source of TaskCreated starts to `nextSeq` of the task
 * stream, when that is further on and the stream is still the one `opened` (ADR 0068).
 * nats-server resumes a source after the last message the stream holds (its
 * Nats-Stream-Source header); a work queue whose tasks have all ended holds none, and after a
 * restart the source then starts at its `opt_start_seq`. Left at 1, the whole log would be
 * sourced again and the workers would judge every task ever created once more: a cost that
 * grows with history (invariant 9). Any sequence a worker was delivered is safe: the server
 * sources in order, so every TaskCreated before it is in the stream already. `read`: the
 * stream's state as just read by the caller, when it has one (no second read).
 */
export async function advanceDispatchSource(jsm: JetStreamManager, opened: OpenedDispatchStream, nextSeq: number, read?: StreamInfo): Promise<'moved' | 'further' | 'another stream'> {
  const info = read ?? (await jsm.streams.info(DISPATCH_STREAM))
  const source = onlySource(info)
  if (info.created !== opened.created) return 'another stream'
  if (!source || (source.opt_start_seq ?? 0) >= nextSeq) return 'further'
  const updated = await jsm.streams.update(DISPATCH_STREAM, { sources: [{ ...source, opt_start_seq: nextSeq }] })
  if (updated.created === opened.created) return 'moved'
  // Deleted and made again between the read and the update: this start says nothing of the new one's source.
  await jsm.streams.update(DISPATCH_STREAM, { sources: [{ ...source, opt_start_seq: 1 }] })
  return 'another stream'
}

/**
 * Asks the dispatch stream's leader to hand over to another replica (ADR 0069): the new leader
 * sets the source up again at once, where the old one would wait out nats-server's backoff.
 */
export async function stepDownDispatchLeader(nc: NatsConnection, jsm: JetStreamManager, timeoutMs: number): Promise<void> {
  const prefix = jsm.getOptions().apiPrefix ?? '$JS.API'
  const answer = await nc.request(`${prefix}.STREAM.LEADER.STEPDOWN.${DISPATCH_STREAM}`, undefined, { timeout: timeoutMs })
  const body = answer.json<{ success?: boolean; error?: { code: number; description: string } }>()
  if (!body.success) throw new Error(`nats-server refused the step-down of ${DISPATCH_STREAM}'s leader: ${body.error?.description ?? 'no reason given'}`)
}

const STREAM_NAME_IN_USE = 10058

/**
 * How long an account's durable outlives its last pull: an account that posts nothing for an
 * hour leaves no consumer behind (the server removes it), and workers forget it as long after.
 */
export const DISPATCH_CONSUMER_IDLE_MS = 3_600_000

/** One account's durable on the dispatch stream: explicit acks, redelivered without limit (runTask decides what a redelivery means). */
export function dispatchConsumerConfig(accountId: string, ackWaitMs: number) {
  return {
    durable_name: dispatchConsumer(accountId),
    filter_subject: dispatchSubject(accountId),
    ack_policy: AckPolicy.Explicit,
    ack_wait: ackWaitMs * 1_000_000,
    max_deliver: -1,
    max_ack_pending: -1,
    // One deleted with a task unacknowledged is made again by the next turn and redelivers it (runTask judges it).
    inactive_threshold: DISPATCH_CONSUMER_IDLE_MS * 1_000_000,
  }
}

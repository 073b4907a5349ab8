import { DiscardPolicy, JetStreamApiCodes, JetStreamApiError, RetentionPolicy, StorageType, type JetStreamManager, type StreamConfig } from '@nats-io/jetstream'
import { provisioned } from './provisioning.js'
import { STREAMS, STREAM_NAMES } from './subjects.js'

const SECOND_NS = 1_000_000_000

export interface StreamOptions {
  /** JetStream replicas: 1 locally, 3 in production (see docs/operations.md). */
  readonly replicas: number
}

function configFor(name: keyof typeof STREAMS, options: StreamOptions): Partial<StreamConfig> & { name: string } {
  return {
    name,
    subjects: [...STREAMS[name].subjects],
    description: `mats event log: ${STREAMS[name].categories.join(', ')} events`,
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    discard: DiscardPolicy.Old,
    // The log is the source of truth: nothing ages out.
    max_age: 0,
    max_msgs: -1,
    max_bytes: -1,
    num_replicas: options.replicas,
    duplicate_window: 120 * SECOND_NS,
    // Direct gets let any replica answer aggregate loads without a consumer.
    allow_direct: true,
    deny_delete: true,
    deny_purge: true,
    // A decision of several events is one atomic batch: stored all or none (ADR 0026).
    allow_atomic: true,
  }
}

/**
 * Creates the streams that are missing; safe to call from every process. An existing
 * stream keeps its replicas and limits (they belong to the operator, docs/operations.md),
 * but gains the subjects a newer version of the code writes to and atomic batch publish (the
 * subjects and the way events are appended are the code's).
 */
export async function ensureStreams(jsm: JetStreamManager, options: StreamOptions): Promise<void> {
  for (const name of STREAM_NAMES) {
    try {
      const { config } = await provisioned(`look up stream ${name}`, () => jsm.streams.info(name))
      requireAtomicBatches(await updateWhatTheCodeOwns(jsm, name, config))
    } catch (err) {
      if (!isStreamNotFound(err)) throw err
      try {
        requireAtomicBatches((await provisioned(`create stream ${name}`, () => jsm.streams.add(configFor(name, options)))).config)
      } catch (addErr) {
        // Another process created it between our info and add.
        if (!isStreamNameInUse(addErr)) throw addErr
      }
    }
  }
}

export class AtomicBatchesUnsupportedError extends Error {
  override readonly name = 'AtomicBatchesUnsupportedError'
}

/**
 * A server before 2.12 drops `allow_atomic` from the config it stores, and would store a
 * batch's messages one by one: refuse to start rather than leave half of a decision.
 */
function requireAtomicBatches(config: StreamConfig): void {
  if (config.allow_atomic !== true) {
    throw new AtomicBatchesUnsupportedError(`stream ${config.name} does not allow atomic batch publish: mats needs nats-server 2.12 or newer (docs/operations.md)`)
  }
}

/** The stream's config once it has the code's subjects and atomic batches. */
async function updateWhatTheCodeOwns(jsm: JetStreamManager, name: keyof typeof STREAMS, config: StreamConfig): Promise<StreamConfig> {
  const present = config.subjects ?? []
  const missing = STREAMS[name].subjects.filter((subject) => !present.includes(subject))
  if (missing.length === 0 && config.allow_atomic === true) return config
  return (await provisioned(`update stream ${name}`, () => jsm.streams.update(name, { subjects: [...present, ...missing], allow_atomic: true }))).config
}

const STREAM_NAME_IN_USE = 10058

function isStreamNotFound(err: unknown): boolean {
  return err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound
}

function isStreamNameInUse(err: unknown): boolean {
  return err instanceof JetStreamApiError && err.code === STREAM_NAME_IN_USE
}

import { readEventData } from '../../domain/events/read.js'
import { EVENT_REGISTRY, type EventRegistry } from '../../domain/events/registry.js'
import type { EventEnvelope, RecordedEvent } from '../../domain/message.js'
import { eventSubjectParts } from './subjects.js'

/** What a stored message carries that decoding needs. */
export interface StoredMessage {
  readonly subject: string
  readonly seq: number
  readonly data: Uint8Array
}

/**
 * A message in an event stream that is not an event: anyone allowed to publish on `mats.>`
 * can store one (a bug, a hand-typed `nats pub`). Consumers skip or terminate it and record
 * it (see poison-messages.ts); it never stops a reader.
 */
export class UndecodableMessageError extends Error {
  override readonly name = 'UndecodableMessageError'

  constructor(
    readonly subject: string,
    readonly seq: number,
    readonly reason: string,
  ) {
    super(`message ${seq} on ${subject} is not an event: ${reason}`)
  }
}

const utf8 = new TextDecoder()
const STRING_FIELDS = ['id', 'type', 'occurredAt', 'accountId', 'aggregateId'] as const

/**
 * The event a stored message holds, its data upcast to the current version of its type and
 * checked against that version's schema; throws UndecodableMessageError when it holds none.
 */
export function decodeEvent(msg: StoredMessage, registry: EventRegistry = EVENT_REGISTRY): RecordedEvent {
  let value: unknown
  try {
    value = JSON.parse(utf8.decode(msg.data))
  } catch (err) {
    throw new UndecodableMessageError(msg.subject, msg.seq, `not JSON (${err instanceof Error ? err.message : String(err)})`)
  }
  if (!isEnvelope(value)) throw new UndecodableMessageError(msg.subject, msg.seq, envelopeProblem(value) ?? 'not an event envelope')
  const mismatch = subjectMismatch(value, msg.subject)
  if (mismatch !== null) throw new UndecodableMessageError(msg.subject, msg.seq, mismatch)
  const read = readEventData(value.type, value.version, value.data, registry)
  if ('problem' in read) throw new UndecodableMessageError(msg.subject, msg.seq, read.problem)
  return { ...value, version: read.version, data: read.data, seq: msg.seq, subject: msg.subject }
}

/** The event, or why there is none: for readers that skip what is not an event. */
export function tryDecodeEvent(msg: StoredMessage, registry: EventRegistry = EVENT_REGISTRY): RecordedEvent | UndecodableMessageError {
  try {
    return decodeEvent(msg, registry)
  } catch (err) {
    if (err instanceof UndecodableMessageError) return err
    throw err
  }
}

function envelopeProblem(value: unknown): string | null {
  if (!isRecord(value)) return 'not a JSON object'
  for (const field of STRING_FIELDS) if (typeof value[field] !== 'string') return `${field} is not a string`
  if (!Number.isSafeInteger(value.version) || Number(value.version) < 1) return 'version is not a positive integer'
  if (!isRecord(value.data)) return 'data is not an object'
  return null
}

function isEnvelope(value: unknown): value is EventEnvelope<string, Readonly<Record<string, unknown>>> {
  return envelopeProblem(value) === null
}

const IDENTITY = ['type', 'accountId', 'aggregateId'] as const

/**
 * The envelope's identity must be the subject's (`mats.<category>.<account>.<aggregate>.<type>`):
 * consumers route and partition by the subject without decoding, and handlers by the envelope.
 * A part the subject lacks (read as `''`) matches no envelope field, not even an empty one.
 */
function subjectMismatch(envelope: EventEnvelope, subject: string): string | null {
  const parts = eventSubjectParts(subject)
  for (const field of IDENTITY) {
    if (parts[field] === '' || envelope[field] !== parts[field]) return `${field} ${envelope[field]} is not the subject's ${parts[field] || '(none)'}`
  }
  return null
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

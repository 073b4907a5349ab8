import type { EventEnvelope, RecordedEvent } from '../../domain/message.js'

const utf8 = new TextDecoder()

/** A stored message as the event it holds, with its place in the log. */
export function decodeEvent(msg: { subject: string; seq: number; data: Uint8Array }): RecordedEvent {
  const envelope = JSON.parse(utf8.decode(msg.data)) as EventEnvelope
  return { ...envelope, seq: msg.seq, subject: msg.subject }
}

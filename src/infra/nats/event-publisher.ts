import type { JetStreamClient } from '@nats-io/jetstream'
import { headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node'
import type { EventEnvelope } from '../../domain/message.js'
import { inSpan, SpanKind, traceHeaders } from '../tracing/spans.js'
import { BatchPublisher, type BatchObserver } from './batch-publisher.js'
import { isDuplicateInBatch, isWrongLastSequence } from './conflicts.js'
import { AppendInDoubtError, ConcurrencyError, EventStoreUnavailableError, LATE_ACK_MS, type AppendSettlement } from './event-store-errors.js'
import { settleWithin } from '../deadline.js'
import type { Guard, Planned } from './event-store-types.js'
import type { StreamName } from './subjects.js'

/** nats.js' own default for a JetStream request. */
const DEFAULT_TIMEOUT_MS = 5000

/**
 * How the event store's appends reach the log: one event as a plain publish, several as one
 * atomic batch (ADR 0026), each traced as a producer span whose context travels in the
 * messages' headers (`traceparent`), and NATS' refusals turned into the store's errors.
 */
export class EventPublisher {
  private readonly timeoutMs: number
  private readonly batches: BatchPublisher

  constructor(
    nc: NatsConnection,
    private readonly js: JetStreamClient,
    batchesPerStream: number,
    observer?: BatchObserver,
  ) {
    this.timeoutMs = js.getOptions().timeout ?? DEFAULT_TIMEOUT_MS
    this.batches = new BatchPublisher(nc, batchesPerStream, observer)
  }

  /** One append guarded by the aggregate's last sequence; returns its sequence. */
  publish(subject: string, envelope: EventEnvelope, guard: Guard): Promise<number> {
    const attributes = { 'messaging.system': 'nats', 'messaging.destination.name': subject, 'messaging.message.id': envelope.id }
    return inSpan(`append ${envelope.type}`, { kind: SpanKind.PRODUCER, attributes }, async (span) => {
      try {
        const headers = traceHeaders()
        const ack = this.js.publish(subject, JSON.stringify(envelope), {
          msgID: envelope.id,
          expect: { lastSubjectSequence: guard.expected, lastSubjectSequenceSubject: guard.subjects },
          timeout: LATE_ACK_MS,
          ...(headers ? { headers } : {}),
        })
        // The caller is answered within timeoutMs as before; the message may be stored later all the same.
        const inTime = await settleWithin(ack, this.timeoutMs)
        if (inTime.outcome === 'late') {
          const settlement = settlementOf(ack)
          throw new AppendInDoubtError(`no answer from ${subject} within ${this.timeoutMs} ms`, () => settlement)
        }
        if (inTime.outcome === 'failed') throw inTime.error
        const { seq } = await ack
        span.setAttribute('mats.stream.sequence', seq)
        return seq
      } catch (err) {
        throw appendError(err, subject)
      }
    })
  }

  /**
   * Several events as one atomic batch: each aggregate's guard rides on its first message and
   * is checked at the commit against the log as it was before the batch; returns the last
   * one's sequence.
   */
  publishBatch(stream: StreamName, events: readonly Planned[]): Promise<number> {
    const guarded = events.flatMap(({ guard }) => (guard ? [guard.subjects] : []))
    const attributes = { 'messaging.system': 'nats', 'messaging.destination.name': guarded.join(' '), 'messaging.batch.message_count': events.length }
    return inSpan(`append ${events.length} events`, { kind: SpanKind.PRODUCER, attributes }, async (span) => {
      const messages = events.map(({ subject, envelope, guard }) => {
        const headers = traceHeaders() ?? natsHeaders()
        headers.set('Nats-Msg-Id', envelope.id)
        if (guard) {
          headers.set('Nats-Expected-Last-Subject-Sequence', String(guard.expected))
          headers.set('Nats-Expected-Last-Subject-Sequence-Subject', guard.subjects)
        }
        return { subject, payload: JSON.stringify(envelope), headers }
      })
      try {
        const ack = await this.batches.publish(stream, messages, this.timeoutMs)
        span.setAttribute('mats.stream.sequence', ack.seq)
        return ack.seq
      } catch (err) {
        throw appendError(err, guarded.join(', '))
      }
    })
  }
}

/** What the late acknowledgement says: stored, refused by the guard, or nothing more known (no answer, connection lost). */
function settlementOf(ack: Promise<unknown>): Promise<AppendSettlement> {
  return ack.then(
    (): AppendSettlement => 'stored',
    (err: unknown): AppendSettlement => (isWrongLastSequence(err) ? 'not-stored' : 'unknown'),
  )
}

function appendError(err: unknown, subjects: string): Error {
  if (err instanceof AppendInDoubtError) return err
  if (isWrongLastSequence(err) || isDuplicateInBatch(err)) return new ConcurrencyError(`${subjects} moved past the version the decision saw`, { cause: err })
  return new EventStoreUnavailableError(`could not append to ${subjects}`, { cause: err })
}

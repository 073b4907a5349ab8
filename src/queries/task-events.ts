import { randomUUID } from 'node:crypto'
import type { ConsumerMessages } from '@nats-io/jetstream'
import type { EventEnvelope, RecordedEvent } from '../domain/message.js'
import type { Infra } from '../infra/context.js'
import { tryDecodeEvent, UndecodableMessageError } from '../infra/nats/decode.js'
import { LogReader } from '../infra/nats/log-reader.js'
import { closeOrdered } from '../infra/nats/ordered-consumers.js'
import { aggregateSubjects, streamOf } from '../infra/nats/subjects.js'
import { endsTask } from '../domain/tasks/task.js'

export interface TaskEventFeed {
  /**
   * The task's events after the given sequence, in stream order, then its live ones;
   * ends after its terminal event, or when `signal` aborts.
   */
  events(signal: AbortSignal): AsyncGenerator<RecordedEvent>
}

/**
 * A task's events for its owner, or null when the account has no such task: known
 * before anything is sent, so that an unknown or foreign task is a plain 404.
 *
 * The history is read by direct gets (LogReader: no server-side state). Only a task
 * that has not ended yet is followed live, from the sequence after its history, by an
 * ordered JetStream consumer: it delivers only stored events, in stream order, with
 * their sequences, and recovers from gaps by itself. A core subscription would be
 * lighter, but it also delivers publishes the stream rejected (docs/events.md, "only
 * stored events") and may deliver an event before it is stored, so each message would
 * have to be re-read from the log, with retries, to tell which it is. The consumer's
 * cost is one server-side consumer per live stream, deleted when the stream ends.
 */
export async function openTaskEvents(infra: Infra, accountId: string, taskId: string, afterSeq: number): Promise<TaskEventFeed | null> {
  infra.link.assertUp()
  const { events: history } = await new LogReader(infra.jsm).read(streamOf('task'), aggregateSubjects('task', accountId, taskId), 1)
  const last = history.at(-1)
  if (!last) return null
  return {
    async *events(signal) {
      for (const event of history) if (event.seq > afterSeq) yield event
      if (endsTask(last.type) || signal.aborted) return
      yield* follow(infra, accountId, taskId, Math.max(last.seq, afterSeq) + 1, signal)
    },
  }
}

async function* follow(infra: Infra, accountId: string, taskId: string, fromSeq: number, signal: AbortSignal): AsyncGenerator<RecordedEvent> {
  const consumer = await infra.js.consumers.get(streamOf('task'), {
    name_prefix: `task_events_${randomUUID().replaceAll('-', '')}`,
    filter_subjects: [aggregateSubjects('task', accountId, taskId)],
    opt_start_seq: fromSeq,
  })
  let messages: ConsumerMessages | undefined
  try {
    messages = await consumer.consume({ max_messages: 16 })
    const stop = (): void => void messages?.close()
    signal.addEventListener('abort', stop, { once: true })
    try {
      if (signal.aborted) return
      for await (const msg of messages) {
        // Not an event (poison-messages.ts records it): nothing a client could use.
        const event = tryDecodeEvent(msg)
        if (event instanceof UndecodableMessageError) continue
        yield event
        if (endsTask(event.type)) return
      }
    } finally {
      signal.removeEventListener('abort', stop)
    }
  } finally {
    await closeOrdered(consumer, messages)
  }
}

/** What a client sees of an event: the documented envelope (docs/events.md), never NATS internals such as the subject. */
export function publicEnvelope(event: RecordedEvent): EventEnvelope {
  const { id, type, version, occurredAt, accountId, aggregateId, data, metadata } = event
  return { id, type, version, occurredAt, accountId, aggregateId, data, metadata }
}

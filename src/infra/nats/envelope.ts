import { randomUUID } from 'node:crypto'
import type { Aggregate, EventDraft, EventEnvelope, EventMetadata } from '../../domain/message.js'
import type { AggregateKey } from './event-store.js'
import { eventSubject } from './subjects.js'

/** A draft as it is published: its subject and its envelope, with a fresh event id (its `Nats-Msg-Id`). */
export function toEnvelope<State, Event extends EventDraft>(
  aggregate: Aggregate<State, Event>,
  key: AggregateKey & { accountId: string },
  draft: Event,
  options: { readonly metadata: EventMetadata; readonly now: Date },
): { subject: string; envelope: EventEnvelope } {
  return {
    subject: eventSubject(aggregate.category, key.accountId, key.aggregateId, draft.type),
    envelope: {
      id: randomUUID(),
      type: draft.type,
      version: aggregate.versions[draft.type as Event['type']],
      occurredAt: options.now.toISOString(),
      accountId: key.accountId,
      aggregateId: key.aggregateId,
      data: draft.data,
      metadata: options.metadata,
    } satisfies EventEnvelope,
  }
}

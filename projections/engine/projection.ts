import type { IndexDescription } from 'mongodb'
import type { RecordedEvent } from '../../src/domain/message.js'
import type { StreamName } from '../../src/infra/nats/subjects.js'

/** A read-model document as stored: the projection's shape plus the guard sequence. */
export type Stored<Doc> = Doc & { readonly _id: string; readonly _seq: number }

/**
 * A projection folds events of one stream into documents of one collection:
 * `canHandle` lists the event types it reads, `docId` picks the document an event
 * changes, and `evolve` is pure. The engine guards every write by `_seq`, so applying
 * an event twice, or out of a replay, changes nothing.
 */
export interface Projection<Doc extends { _id: string } = { _id: string }, Event extends RecordedEvent = RecordedEvent> {
  readonly name: string
  readonly stream: StreamName
  readonly canHandle: readonly Event['type'][]
  readonly indexes: readonly IndexDescription[]
  /** True when a document is one aggregate: the command side may then apply inline. */
  readonly inline: boolean
  /**
   * Event types that start a document (its aggregate's first event): the engine inserts
   * their documents without reading first, and falls back to a read should one exist.
   */
  readonly startedBy: readonly Event['type'][]
  /**
   * Event types after which a document seldom changes again (a task's end): the engine stops
   * keeping it in memory, so a projector holds the documents still in play, not the last
   * thousands it wrote. A later event reads it back.
   */
  readonly settledBy?: readonly Event['type'][]
  /**
   * True when a reader waits for this projection to reach a sequence (ProjectionProgress:
   * a list after a 201): its projectors announce each batch they applied. The others do not,
   * as no one listens (two core messages per batch each, ADR 0041).
   */
  readonly awaited?: boolean
  docId(event: Event): string
  evolve(doc: Doc | null, event: Event): Doc
}

/**
 * A projection's `evolve` threw for a decodable event: a bug, or an event it cannot take.
 * Applying it again gives the same error, so the projector stops that projection (runner.ts).
 */
export class EventNotAppliedError extends Error {
  override readonly name = 'EventNotAppliedError'

  constructor(
    readonly projection: string,
    readonly event: RecordedEvent,
    cause: unknown,
  ) {
    super(`projection ${projection} cannot apply event ${event.seq} (${event.type} on ${event.subject}): ${cause instanceof Error ? cause.message : String(cause)}`, { cause })
  }
}

function evolve(projection: Projection, doc: { _id: string } | null, event: RecordedEvent): { _id: string } {
  try {
    return projection.evolve(doc, event)
  } catch (err) {
    throw new EventNotAppliedError(projection.name, event, err)
  }
}

export function handles(projection: Projection, type: string): boolean {
  return projection.canHandle.includes(type)
}

/** Narrows a decoded event to what the projection declared it handles. */
export function defineProjection<Doc extends { _id: string }, Event extends RecordedEvent>(projection: Projection<Doc, Event>): Projection {
  return projection as unknown as Projection
}

/**
 * Document `id` with the events newer than its `_seq` that the projection applies to it
 * folded in (the others are skipped): replaying an event it already has changes nothing.
 */
export function foldOnto<Doc extends { _id: string }>(projection: Projection, id: string, doc: Stored<Doc> | null, events: readonly RecordedEvent[]): Stored<Doc> | null {
  let seq = doc?._seq ?? 0
  let folded: { _id: string } | null = doc ? withoutSeq(doc) : null
  for (const event of events) {
    if (event.seq <= seq || !handles(projection, event.type) || projection.docId(event) !== id) continue
    folded = evolve(projection, folded, event)
    seq = event.seq
  }
  return folded ? ({ ...folded, _seq: seq } as Stored<Doc>) : null
}

function withoutSeq<Doc extends { _id: string }>({ _seq: _ignored, ...doc }: Stored<Doc>): { _id: string } {
  return doc
}

/** The document an aggregate's events fold into, straight from the log: null before any event it handles. */
export function foldHistory<Doc extends { _id: string }>(projection: Projection, events: readonly RecordedEvent[]): Doc | null {
  let doc: { _id: string } | null = null
  for (const event of events) if (handles(projection, event.type)) doc = evolve(projection, doc, event)
  return doc as Doc | null
}

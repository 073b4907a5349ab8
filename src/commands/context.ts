import type { RecordedEvent } from '../domain/message.js'
import type { Infra } from '../infra/context.js'
import type { StreamName } from '../infra/nats/subjects.js'

/**
 * Brings an aggregate's own read-model documents up to `history` once its events are
 * appended, so that the writer can read its write (ADR 0002). The write side knows only this
 * hook; the composition root (src/app-context.ts) registers the read side's inline projections
 * behind it, as emmett registers inline projections with its event store. `history` is the
 * aggregate's whole history or, given `follows`, its events after that sequence: a document
 * not at `follows` is then left to the projector, as folding them onto one behind would skip
 * what it lacks (a scheduler takes a schedule's state from its document, ADR 0061).
 */
export type InlineProjection = (stream: StreamName, aggregateId: string, history: readonly RecordedEvent[], follows?: number) => Promise<void>

/** What every command runs on: the connections, and the inline projections to run after an append. */
export interface CommandContext extends Infra {
  readonly projectInline: InlineProjection
}

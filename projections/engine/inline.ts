import type { Logger } from 'pino'
import type { RecordedEvent } from '../../src/domain/message.js'
import type { StreamName } from '../../src/infra/nats/subjects.js'
import { applyToDocument } from './apply.js'
import type { ReadModels } from './read-models.js'

/**
 * Brings one aggregate's own read-model documents up to `history`, so that whoever just
 * wrote (or saw) its events can read them back. A failure here loses nothing: the events
 * are stored and the projector applies them.
 */
export async function projectInline(readModels: ReadModels, log: Logger, stream: StreamName, aggregateId: string, history: readonly RecordedEvent[], follows?: number): Promise<void> {
  for (const projection of readModels.projections) {
    if (!projection.inline || projection.stream !== stream) continue
    try {
      await applyToDocument(readModels.collection(projection), projection, aggregateId, history, follows)
    } catch (err) {
      log.warn({ err, projection: projection.name, aggregateId }, 'inline projection failed; the projector will apply it')
    }
  }
}

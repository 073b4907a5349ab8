import type { Logger } from 'pino'
import { partitionOf } from './partitions.js'
import type { EventNotAppliedError, Projection } from './projection.js'
import type { ReadModels, Stopped } from './read-models.js'

/**
 * What a live runner does when one of its projections cannot apply an event: retrying would
 * fail the same way forever, and skipping would leave its read model wrong without anyone
 * knowing. So it records where that projection stopped (shown by /readyz and `mats projections
 * status`) and stops writing it, the stream's other projections going on, until a restart with
 * a fixed projection (which resumes from its checkpoint, before the event) or a rebuild that
 * activates another generation.
 */
export class Halts {
  constructor(
    private readonly readModels: ReadModels,
    private readonly log: Logger,
    private readonly projection: Projection,
  ) {}

  /** Records the stop; false when it could not be recorded (MongoDB away), so that the caller retries as for any failure. */
  async record(generation: number, err: EventNotAppliedError): Promise<boolean> {
    const { event } = err
    const stopped: Stopped = {
      generation,
      partition: partitionOf(event.accountId),
      seq: event.seq,
      subject: event.subject,
      type: event.type,
      error: err.cause instanceof Error ? err.cause.message : String(err.cause),
      at: new Date(),
    }
    try {
      await this.readModels.markStopped(this.projection, stopped)
    } catch (recordErr) {
      this.log.warn({ err: recordErr, projection: this.projection.name }, 'could not record where the projection stopped')
      return false
    }
    this.log.error(
      { err, projection: this.projection.name, generation, seq: stopped.seq, subject: stopped.subject },
      'projection stopped: it cannot apply this event; fix the projection and restart the projector, or rebuild (docs/operations.md)',
    )
    return true
  }

  /** Forgets the stops of `partitions` that `appliedSeq` has passed: the projection was fixed and applied the event. */
  async clearPassed(generation: number, partitions: readonly number[], appliedSeq: number): Promise<void> {
    for (const stopped of this.readModels.stoppedOf(this.projection)) {
      if (stopped.generation !== generation || stopped.seq > appliedSeq || !partitions.includes(stopped.partition)) continue
      await this.readModels.clearStopped(this.projection, stopped)
      this.log.info({ projection: this.projection.name, seq: stopped.seq }, 'projection resumed past the event it had stopped on')
    }
  }
}

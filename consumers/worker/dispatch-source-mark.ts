import type { JetStreamManager, JsMsg } from '@nats-io/jetstream'
import type { Logger } from 'pino'
import { advanceDispatchSource, DISPATCH_STREAM, type DispatchStreamMade } from '../../src/infra/nats/dispatch-stream.js'
import { logOrigin } from './delivered-task.js'

/**
 * How often a worker moves the dispatch source's start up to what it was delivered: a stream
 * update, cheap at this rate. A restart finding the queue empty sources again at most what
 * was created since the last move (the workers acknowledge those at once: their tasks ended).
 */
export const SOURCE_MARK_EVERY_MS = 15_000

/**
 * Where the dispatch stream's source resumes when the stream is empty (advanceDispatchSource):
 * past the latest TaskCreated this worker was delivered, written every SOURCE_MARK_EVERY_MS
 * while it moves, and once more when the worker stops.
 */
export class DispatchSourceMark {
  private delivered = 0
  private written = 0
  private writtenAt = Number.NEGATIVE_INFINITY

  constructor(
    private readonly jsm: JetStreamManager,
    private readonly made: DispatchStreamMade,
    private readonly log: Logger,
  ) {}

  /** A message delivered from the dispatch stream: its TaskCreated is sourced, and every one before it. */
  saw(msg: JsMsg): void {
    if (msg.info.stream !== DISPATCH_STREAM) return
    const seq = logOrigin(msg)?.seq ?? 0
    if (seq > this.delivered) this.delivered = seq
  }

  /** Writes the mark when it moved and its last write is old enough (or `now`). Never rejects. */
  async write(now = false): Promise<void> {
    if (this.delivered <= this.written) return
    if (!now && performance.now() - this.writtenAt < SOURCE_MARK_EVERY_MS) return
    this.writtenAt = performance.now()
    const delivered = this.delivered
    try {
      await advanceDispatchSource(this.jsm, this.made, delivered + 1)
      this.written = delivered
    } catch (err) {
      this.log.warn({ err }, 'could not move where the dispatch source resumes; trying again later')
    }
  }
}

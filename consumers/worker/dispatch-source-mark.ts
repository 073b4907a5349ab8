import type { JetStreamManager, JsMsg, StreamInfo } from '@nats-io/jetstream'
import type { Logger } from 'pino'
import { advanceDispatchSource, DISPATCH_STREAM, type OpenedDispatchStream } from '../../src/infra/nats/dispatch-stream.js'
import { logOrigin } from './delivered-task.js'

/**
 * How often a worker moves the dispatch source's start up to what it was delivered, while
 * that moves: two requests to NATS (nats.js' stream update reads the stream, then updates it),
 * from the stream's state the turns read anyway. A restart finding the
 * queue empty sources again what was created since the last move (the workers acknowledge
 * those at once: their tasks ended).
 */
export const SOURCE_MARK_EVERY_MS = 15_000

/**
 * Where the dispatch stream's source resumes when the stream is empty (advanceDispatchSource,
 * ADR 0068): past the latest TaskCreated this worker was delivered, written every
 * SOURCE_MARK_EVERY_MS while it moves, and once more when the worker stops.
 */
export class DispatchSourceMark {
  private delivered = 0
  private written = 0
  private writtenAt = Number.NEGATIVE_INFINITY
  /** One write at a time, in order: the last one asked for lands last. */
  private writing: Promise<void> = Promise.resolve()
  private streamGone = false

  constructor(
    private readonly jsm: JetStreamManager,
    private readonly opened: OpenedDispatchStream,
    private readonly log: Logger,
  ) {}

  /** A message delivered from the dispatch stream: its TaskCreated is sourced, and every one before it. */
  saw(msg: JsMsg): void {
    if (msg.info.stream !== DISPATCH_STREAM) return
    const seq = logOrigin(msg)?.seq ?? 0
    if (seq > this.delivered) this.delivered = seq
  }

  /**
   * Writes the mark when it moved and its last write is old enough (`read`: the stream's state
   * the turns just read, once a second), or at once (`now`, on stop). Never rejects.
   */
  write(when: { read: StreamInfo } | 'now'): Promise<void> {
    if (this.streamGone || this.delivered <= this.written) return this.writing
    if (when !== 'now' && performance.now() - this.writtenAt < SOURCE_MARK_EVERY_MS) return this.writing
    this.writtenAt = performance.now()
    const delivered = this.delivered
    const read = when === 'now' ? undefined : when.read
    this.writing = this.writing.then(() => this.advance(delivered, read))
    return this.writing
  }

  private async advance(delivered: number, read: StreamInfo | undefined): Promise<void> {
    try {
      const result = await advanceDispatchSource(this.jsm, this.opened, delivered + 1, read)
      this.written = Math.max(this.written, delivered)
      if (result !== 'another stream') return
      this.streamGone = true
      this.log.warn({ stream: DISPATCH_STREAM }, 'the dispatch stream was made again since this worker opened it; its source start is left to the workers started since')
    } catch (err) {
      this.log.warn({ err }, 'could not move where the dispatch source resumes; trying again later')
    }
  }
}

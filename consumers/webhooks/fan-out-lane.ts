import type { Logger } from 'pino'
import type { RecordedEvent } from '../../src/domain/message.js'
import type { PoisonMessages } from '../../src/infra/mongo/poison-messages.js'
import type { FanOutCursor, FanOutCursors } from '../../src/infra/nats/fan-out-cursors.js'
import type { Read } from '../../src/infra/nats/log-reader.js'
import { FanOutFailures } from './fan-out-failures.js'
import type { Slots } from './slots.js'

/** Events read and fanned out per turn of a slot: a turn of a webhook-heavy account is 32 × its webhooks jobs. */
export const FAN_OUT_PAGE = 32
/** A claim on an account lasts this long past its last write; a process that died holding one is taken over after it. */
const CLAIM_MS = 30_000
/**
 * A lane that caught up keeps its claim this long for the account's next event (a task's
 * started and ended follow its creation closely): that event is fanned out at once, without
 * claiming the cursor again (a read and a write) and the empty read and release before.
 */
const LINGER_MS = 1000
/** After a failure (NATS or MongoDB out of reach, an event not handled yet), the lane looks again this much later. */
const RETRY_MS = 2000

export interface FanOutLaneDeps {
  readonly cursors: FanOutCursors
  /** The account's events from `fromSeq`, about `max` of them, at least up to `atLeast` when the log holds that much. */
  readonly read: (accountId: string, fromSeq: number, max: number, atLeast: number) => Promise<Read>
  readonly fanOut: (accountId: string, events: readonly RecordedEvent[]) => Promise<void>
  readonly slots: Slots
  readonly poison: PoisonMessages
  /** This process, as a cursor's holder. */
  readonly holder: string
  readonly log: Logger
}

/**
 * One account's fan-out in one process (ADR 0042): rung when the account has a new task event,
 * it claims the account's cursor, then pages through the events after it, one page per turn
 * of the process's fan-out slots (so accounts take turns, whatever their backlogs), moving the
 * cursor on after each page's jobs are stored, until it finds no more; then lets the claim go.
 * A lane rung while another process holds the account looks again once that one lets go (the
 * cursors' watch) or its claim runs out.
 */
export class FanOutLane {
  private running: Promise<void> | null = null
  private again = false
  /** The newest sequence heard of: a read that falls short of it asks the stream leader. */
  private heard = 0
  /** Rung while another process held the account: look again once it lets go. */
  private deferred = false
  /**
   * Whether `heard` tells where the account's log ends: the lane was rung with an event's
   * sequence (every later one is rung too), or a read found nothing after its cursor. A lane
   * first rung over a backlog stored while no process fanned out knows neither: it reads on until
   * a read comes back empty, through short pages and failures alike.
   */
  private endKnown = false
  private timer: NodeJS.Timeout | undefined
  /** Wakes a lane lingering with its claim (a ring, a stop). */
  private wake: (() => void) | undefined
  private stopping = false

  private readonly failures: FanOutFailures

  constructor(
    private readonly accountId: string,
    private readonly deps: FanOutLaneDeps,
  ) {
    this.failures = new FanOutFailures(deps.poison)
  }

  ring(seq = 0): void {
    this.heard = Math.max(this.heard, seq)
    if (seq > 0) this.endKnown = true
    if (this.stopping) return
    if (this.running) {
      this.again = true
      this.wake?.()
      return
    }
    this.running = this.run().finally(() => {
      this.running = null
    })
  }

  /** The account's cursor changed (any process): rings a lane that was waiting for its holder to let go. */
  cursorChanged(cursor: FanOutCursor): void {
    if (!this.deferred || (cursor.holder !== null && cursor.until > Date.now())) return
    if (!this.nothingLeftAfter(cursor)) {
      this.ring()
      return
    }
    // The holder went past every event heard of here: nothing is left for this lane.
    this.deferred = false
    clearTimeout(this.timer)
  }

  /** Stops after the page in hand; its claim is let go. */
  async stop(): Promise<void> {
    this.stopping = true
    clearTimeout(this.timer)
    this.wake?.()
    await this.running
  }

  private async run(): Promise<void> {
    try {
      do {
        this.again = false
        await this.drain()
      } while (this.again && !this.stopping)
    } catch (err) {
      this.deps.log.error({ err, accountId: this.accountId }, 'webhooks fan-out: an account could not be fanned out; trying again')
      this.later(RETRY_MS)
    }
  }

  private async drain(): Promise<void> {
    let cursor = await this.claim()
    let caughtUp = false
    try {
      while (cursor && !this.stopping) {
        if (caughtUp && !(await this.heardPast(cursor.seq))) return
        this.again = false
        const read = await this.fanOutPageAfter(cursor.seq)
        if (!read) return
        cursor = await this.deps.cursors.write(this.accountId, cursor, { seq: read.lastSeq, holder: this.deps.holder, until: Date.now() + CLAIM_MS })
        this.failures.passed(read.lastSeq)
        // A short page that reached every event heard of: the log held no more when read.
        caughtUp = this.endKnown && read.events.length + read.undecodable.length < FAN_OUT_PAGE && read.lastSeq >= this.heard
      }
    } finally {
      if (cursor) await this.deps.cursors.write(this.accountId, cursor, { seq: cursor.seq, holder: null, until: 0 })
    }
  }

  /** The page of events after `seq`, fanned out on one of the process's slots (accounts take turns); null when there is none, or no slot (stopping). */
  private async fanOutPageAfter(seq: number): Promise<Read | null> {
    const slot = await this.deps.slots.reserve()
    if (!slot) return null
    try {
      const read = await this.deps.read(this.accountId, seq + 1, FAN_OUT_PAGE, this.heard)
      if (read.lastSeq <= seq) {
        this.endKnown = true
        this.heard = Math.max(this.heard, seq)
        return null
      }
      await this.failures.recordUndecodable(read)
      await this.failures.fanOut(read.events, (events) => this.deps.fanOut(this.accountId, events))
      return read
    } finally {
      slot.release()
    }
  }

  /** Whether an event past `seq` is heard of within LINGER_MS (at once if it already was); false on a stop. */
  private async heardPast(seq: number): Promise<boolean> {
    if (this.heard <= seq && !this.stopping) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, LINGER_MS)
        this.wake = () => {
          clearTimeout(timer)
          resolve()
        }
      })
      this.wake = undefined
    }
    return this.heard > seq && !this.stopping
  }

  /** The account's cursor, held by this process; null when another holds it (or took it just now). */
  private async claim(): Promise<FanOutCursor | null> {
    const cursor = await this.deps.cursors.get(this.accountId)
    // No cursor: the account never had a webhook. Past what was heard of: another process fanned it out.
    if (!cursor || this.nothingLeftAfter(cursor)) return null
    const now = Date.now()
    if (cursor.holder !== null && cursor.holder !== this.deps.holder && cursor.until > now) {
      this.deferred = true
      this.later(cursor.until - now)
      return null
    }
    this.deferred = false
    const claimed = await this.deps.cursors.write(this.accountId, cursor, { seq: cursor.seq, holder: this.deps.holder, until: now + CLAIM_MS })
    if (!claimed) this.again = true
    return claimed
  }

  /** Whether the cursor is past every event this lane heard of, once the lane knows where the log ends. */
  private nothingLeftAfter(cursor: FanOutCursor): boolean {
    return this.endKnown && cursor.seq >= this.heard
  }

  private later(ms: number): void {
    clearTimeout(this.timer)
    this.timer = setTimeout(() => this.ring(), Math.max(0, ms) + 50)
    this.timer.unref()
  }
}

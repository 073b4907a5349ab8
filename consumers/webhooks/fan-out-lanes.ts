import type { Logger } from 'pino'
import type { FanOutCursor, FanOutCursors } from '../../src/infra/nats/fan-out-cursors.js'
import { fanOutDoorbell } from './fan-out-doorbell.js'
import { FanOutLane, type FanOutLaneDeps } from './fan-out-lane.js'
import type { FollowingNats, StreamFollower } from '../../src/infra/nats/stream-follower.js'

/**
 * The fan-out shared fairly across accounts in one process (ADR 0042): a lane per account with
 * a cursor (an account that has, or had, a webhook), learnt from the cursors' watch, rung by the
 * doorbell when the account has a new task event, each lane taking the process's fan-out slots
 * in turn. Every webhooks process runs one; the cursors' claims keep two processes from fanning
 * out one account at once.
 */
export class FanOutLanes {
  private readonly lanes = new Map<string, FanOutLane>()
  private readonly doorbell: StreamFollower
  private watching: { stop: () => void; done: Promise<void> } | undefined
  private stopping = false

  constructor(
    private readonly cursors: FanOutCursors,
    private readonly deps: Omit<FanOutLaneDeps, 'cursors'>,
    private readonly log: Logger,
  ) {
    this.doorbell = fanOutDoorbell((accountId, seq) => this.lanes.get(accountId)?.ring(seq), log)
  }

  /**
   * The doorbell first, then the watch: an event stored after the doorbell started rings its
   * lane; one stored before is found by the lane's first look, which the watch's first sight
   * of each cursor starts.
   */
  async start(nats: FollowingNats): Promise<void> {
    await this.doorbell.listen(nats)
    this.watching = await this.cursors.watch((accountId, cursor) => this.onCursor(accountId, cursor))
    this.watching.done.then(
      () => this.stopping || this.log.error('the webhooks fan-out cursor watch ended; new accounts are not fanned out until restart'),
      (err: unknown) => this.log.error({ err }, 'the webhooks fan-out cursor watch failed; new accounts are not fanned out until restart'),
    )
  }

  /** Stops ringing lanes, lets each finish its page and its claim go. */
  async stop(): Promise<void> {
    this.stopping = true
    this.watching?.stop()
    await this.doorbell.stop()
    this.deps.slots.close()
    await Promise.allSettled([...this.lanes.values()].map((lane) => lane.stop()))
  }

  private onCursor(accountId: string, cursor: FanOutCursor): void {
    if (this.stopping) return
    const known = this.lanes.get(accountId)
    if (known) {
      known.cursorChanged(cursor)
      return
    }
    const lane = new FanOutLane(accountId, { ...this.deps, cursors: this.cursors })
    this.lanes.set(accountId, lane)
    lane.ring()
  }
}

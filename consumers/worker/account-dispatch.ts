import type { JsMsg } from '@nats-io/jetstream'
import { DISPATCH_DOORBELL_ROOT } from '../../src/infra/nats/dispatch-doorbell.js'
import { accountAfter } from '../../src/infra/nats/subjects.js'
import { ensureDispatchStream } from '../../src/infra/nats/dispatch-stream.js'
import { AccountTurns, type TasksHere } from './account-turns.js'
import { DispatchSourceMark } from './dispatch-source-mark.js'
import { DispatchSourceWatch } from './dispatch-source-watch.js'
import { pause, REFRESH_MS, RETRY_MS, type PullLoopDeps } from './pull-loop.js'

/**
 * Per-account dispatch (ADR 0052): the dispatch stream, one durable per account pulled in
 * turns, the doorbell that gives an account's new task a turn at once (ADR 0064), the mark of
 * where the stream's source resumes once it is empty (ADR 0068) and the watch that has a new
 * stream leader set up a silent source again (ADR 0069).
 */
export class AccountDispatch {
  private readonly turns: AccountTurns
  private readonly sourceWatch: DispatchSourceWatch
  private doorbell: { unsubscribe(): void } | undefined

  private constructor(
    private readonly deps: PullLoopDeps,
    here: TasksHere,
    private readonly sourceMark: DispatchSourceMark,
  ) {
    const { js, jsm, nc, config, metrics } = deps.infra
    this.sourceWatch = new DispatchSourceWatch(nc, jsm, config.NATS_TIMEOUT_MS, metrics, deps.log)
    const deliver = (msg: JsMsg) => {
      sourceMark.saw(msg)
      deps.deliver(msg)
    }
    this.turns = new AccountTurns(js, jsm, deps.ackWaitMs, deliver, here, () => deps.wake.ring(), deps.log)
  }

  /**
   * Makes the dispatch stream (sourcing from the log's end when `mats-worker` is still there
   * to drain: what it holds must not be sourced twice) and rings the doorbell from now on.
   */
  static async open(deps: PullLoopDeps, here: TasksHere, replicas: number, draining: boolean): Promise<AccountDispatch> {
    const opened = await ensureDispatchStream(deps.infra.jsm, replicas, draining)
    const dispatch = new AccountDispatch(deps, here, new DispatchSourceMark(deps.infra.jsm, opened, deps.log))
    dispatch.listenForDoorbells()
    return dispatch
  }

  /** Takes turns among the accounts with waiting tasks while the lookahead has room. Never rejects. */
  async run(): Promise<void> {
    let refreshedAt = 0
    while (!this.deps.stopping.aborted) {
      try {
        if (Date.now() - refreshedAt >= REFRESH_MS) {
          // The accounts rung meanwhile are pulled first: their pull need not wait for the read's answer.
          this.turns.takeTurns(this.deps.room() - this.turns.asked)
          const info = await this.turns.refresh()
          refreshedAt = Date.now()
          void this.sourceMark.write({ read: info })
          void this.sourceWatch.check(info)
        }
        this.turns.takeTurns(this.deps.room() - this.turns.asked)
      } catch (err) {
        if (this.deps.stopping.aborted) break
        this.deps.log.error({ err }, 'reading which accounts have tasks failed; retrying')
        await pause(RETRY_MS)
        continue
      }
      await this.deps.wake.wait(REFRESH_MS)
    }
  }

  stop(): void {
    this.turns.stop()
    this.sourceWatch.stop()
    this.doorbell?.unsubscribe()
  }

  /** Once the worker's last tasks are acknowledged: a restart right after sources none of them again. */
  async markSource(): Promise<void> {
    await this.sourceMark.write('now')
  }

  /**
   * A task's creation rang (ADR 0064): its account gets a turn now, not at the next refresh. A
   * creation within the doorbell's quiet time after a ring rings nothing: the pull that ring
   * started, or the turn after it if it filled, takes it (account-turns.ts).
   */
  private listenForDoorbells(): void {
    this.doorbell = this.deps.infra.nc.subscribe(`${DISPATCH_DOORBELL_ROOT}.*`, {
      callback: (_err, msg) => {
        this.turns.ring(accountAfter(DISPATCH_DOORBELL_ROOT, msg.subject))
        this.deps.wake.ring()
      },
    })
  }
}

import type { JsMsg } from '@nats-io/jetstream'
import type { Logger } from 'pino'
import type { AppContext } from '../../src/app-context.js'
import { HandlingFailures, verdictOn } from '../../src/infra/nats/failed-messages.js'
import { PoisonMessages } from '../../src/infra/mongo/poison-messages.js'
import type { LogOrigin } from './delivered-task.js'
import { ClaimerAliveError, type TaskRef } from './run-task.js'

const CLAIMER_MARGIN_MS = 100

/** A delivered TaskCreated, decoded once, waiting for a slot. */
export interface Held {
  readonly msg: JsMsg
  readonly ref: TaskRef
  readonly origin: LogOrigin
}

/**
 * How a task's message is settled once its handling ends: acknowledged, handed back, or
 * terminated as poison; with it, every redelivery of the same task this worker holds.
 */
export class Settlement {
  /**
   * Deliveries of a task this worker already holds, by task id: after NATS was out of reach
   * its TaskCreated may come back to the worker that runs it. It keeps its run, and settles
   * these with the first delivery.
   */
  private readonly redeliveries = new Map<string, JsMsg[]>()
  /** How often each TaskCreated's handling failed here, outages aside (failed-messages.ts). */
  private readonly failures = new HandlingFailures()
  /** See RunContext.claimsInDoubt; forgotten once the task's message is settled for good. */
  readonly claimsInDoubt = new Set<string>()

  constructor(
    private readonly infra: AppContext,
    private readonly ackWaitMs: number,
    private readonly log: Logger,
  ) {}

  /** Whether this is the first delivery of its task here; a later one is kept, to be settled with the first. */
  firstDelivery(taskId: string, msg: JsMsg): boolean {
    const again = this.redeliveries.get(taskId)
    if (again) {
      again.push(msg)
      return false
    }
    this.redeliveries.set(taskId, [])
    return true
  }

  succeeded({ ref, msg }: Held): void {
    this.failures.forget(msg)
    this.settleForGood(ref.taskId, msg, (m) => m.ack())
  }

  failed(held: Held, err: unknown): void {
    // Asked again just after the claimer's heartbeat runs out; the claimer's own end usually comes first.
    if (err instanceof ClaimerAliveError) {
      this.log.info({ taskId: held.ref.taskId }, err.message)
      this.settle(held.ref.taskId, held.msg, (m) => m.nak(err.aliveForMs + CLAIMER_MARGIN_MS))
      return
    }
    this.handleFailure(held, err)
  }

  /** Handed back at once (a shutdown): another worker takes it. */
  handBack({ ref, msg }: Held): void {
    this.settle(ref.taskId, msg, (m) => m.nak())
  }

  /** In-progress acks for the redeliveries held, so the server does not send them a third time. */
  touch(): void {
    for (const again of this.redeliveries.values()) for (const msg of again) msg.working()
  }

  /**
   * NATS or MongoDB out of reach: the message goes back for another try, for as long as that
   * lasts. Any other failure would fail the same way forever: after MAX_HANDLING_ATTEMPTS such
   * failures the message is terminated and recorded as poison (failed-messages.ts), and the
   * task stays as the log has it (a pending one can still be cancelled).
   */
  private handleFailure({ ref, msg, origin }: Held, err: unknown): void {
    const verdict = verdictOn(msg, err, this.failures)
    if (verdict.retry) {
      this.log.error({ err, taskId: ref.taskId, failed: verdict.failed }, 'could not process task; it will be redelivered')
      this.settle(ref.taskId, msg, (m) => m.nak(this.ackWaitMs))
      return
    }
    const { reason } = verdict
    this.settleForGood(ref.taskId, msg, (m) => m.term(reason))
    void new PoisonMessages(this.infra.db, this.log).record({ ...origin, reason }, 'worker')
  }

  private settle(taskId: string, msg: JsMsg, how: (msg: JsMsg) => void): void {
    for (const delivery of [msg, ...(this.redeliveries.get(taskId) ?? [])]) how(delivery)
    this.redeliveries.delete(taskId)
  }

  /** Acknowledged or terminated: the message will not come back, and neither will the doubt about its claim. */
  private settleForGood(taskId: string, msg: JsMsg, how: (msg: JsMsg) => void): void {
    this.claimsInDoubt.delete(taskId)
    this.settle(taskId, msg, how)
  }
}

import { setMaxListeners } from 'node:events'
import type { JsMsg } from '@nats-io/jetstream'
import type { Logger } from 'pino'
import type { AppContext } from '../../src/app-context.js'
import type { WorkerHeartbeats } from '../../src/infra/nats/worker-heartbeats.js'
import { contextOf, inSpan, SpanKind } from '../../src/infra/tracing/spans.js'
import type { AgentProvider } from '../agents/provider.js'
import type { PlatformConnectors } from '../connectors/platform-connectors.js'
import type { RunCancellations } from './cancellations.js'
import { deliveredTask } from './delivered-task.js'
import { runTask, type RunContext, type TaskRef } from './run-task.js'
import { TaskScheduler, type Waiting } from './scheduler.js'
import { type Held, Settlement } from './settlement.js'

export interface TaskSlotsDeps {
  readonly infra: AppContext
  readonly provider: AgentProvider
  readonly connectors: PlatformConnectors
  readonly workerId: string
  readonly heartbeats: () => WorkerHeartbeats
  readonly cancellations: RunCancellations
  readonly concurrency: number
  readonly ackWaitMs: number
  readonly timeoutMs: number
  /** A slot was freed: the pull loops may have room again. */
  readonly slotFreed: () => void
  readonly log: Logger
}

/**
 * The tasks a worker holds, whichever loop delivered them: waiting in the scheduler, then
 * running in one of `concurrency` slots, until their message is settled (settlement.ts).
 */
export class TaskSlots {
  private readonly scheduler = new TaskScheduler<Held>()
  /** Every task this worker is dealing with, until its message is acknowledged. */
  private readonly running = new Map<JsMsg, Promise<void>>()
  /** Of `running`, by account. */
  private readonly startedOf = new Map<string, number>()
  private readonly settlement: Settlement
  /** Tasks holding one of the `concurrency` slots: from their claim until their agent run returns. */
  private slots = 0
  private readonly shutdown = new AbortController()
  private closed = false

  constructor(private readonly deps: TaskSlotsDeps) {
    this.settlement = new Settlement(deps.infra, deps.ackWaitMs, deps.log)
    // Every run listens for the shutdown (linkedSignal): as many listeners as runs, not a leak.
    setMaxListeners(0, this.shutdown.signal)
  }

  /** Tasks held, not started yet: they count against the lookahead. */
  get waiting(): number {
    return this.scheduler.size
  }

  /** Tasks of this account held here, not started yet. */
  heldOf(accountId: string): number {
    return this.scheduler.waitingOf(accountId)
  }

  /** Tasks of this account whose message this worker has not settled: held, running, or ending (account-turns.ts). */
  ownedOf(accountId: string): number {
    return this.heldOf(accountId) + (this.startedOf.get(accountId) ?? 0)
  }

  /** Takes a delivered TaskCreated; after `close`, hands it back at once. */
  add(msg: JsMsg): void {
    if (this.closed) {
      msg.nak()
      return
    }
    const delivered = deliveredTask(msg, this.deps.infra, this.deps.log)
    if (!delivered) return
    const { event, origin } = delivered
    if (!this.settlement.firstDelivery(event.aggregateId, msg)) return
    const priority = event.data.priority ?? 'normal'
    const ref = { accountId: event.accountId, taskId: event.aggregateId, created: event, redelivered: msg.redelivered }
    this.scheduler.add({ accountId: event.accountId, priority, seq: origin.seq, item: { msg, ref, origin } })
    this.dispatch()
  }

  /** In-progress acks for every message held: waiting, running, or redelivered meanwhile. */
  touch(): void {
    for (const entry of this.scheduler.items()) entry.item.msg.working()
    for (const msg of this.running.keys()) msg.working()
    this.settlement.touch()
  }

  /** Starts nothing more, and hands back whatever comes from now on. */
  close(): void {
    this.closed = true
  }

  /** Hands waiting tasks back, lets running ones finish for up to `graceMs`, then aborts them (reason `worker_shutdown`). */
  async drain(graceMs: number): Promise<void> {
    for (const entry of this.scheduler.drain()) this.settlement.handBack(entry.item)
    const settled = Promise.allSettled(this.running.values())
    const grace = new Promise<'grace over'>((resolve) => setTimeout(() => resolve('grace over'), graceMs).unref())
    if ((await Promise.race([settled, grace])) === 'grace over') {
      this.deps.log.warn({ running: this.running.size }, 'grace period over: failing the tasks still running')
      this.shutdown.abort(new Error('worker shutdown'))
      await settled
    }
  }

  /**
   * Starts the best waiting tasks while slots are free. A slot is held while the agent runs,
   * not while its end is appended and its message acknowledged: `concurrency` bounds agent
   * runs (the model calls), and the next run need not wait for the bookkeeping of the last.
   */
  private dispatch(): void {
    while (!this.closed && this.slots < this.deps.concurrency) {
      const entry = this.scheduler.next()
      if (!entry) return
      this.start(entry)
    }
  }

  private start(entry: Waiting<Held>): void {
    const held = entry.item
    const ctx = this.runContext()
    this.slots++
    const release = this.releaser(entry.accountId)
    const run = tracedRun(held.msg, held.ref, () => runTask(ctx, held.ref, release))
      .then(() => this.settlement.succeeded(held))
      .catch((err: unknown) => this.settlement.failed(held, err))
      .finally(() => {
        this.running.delete(held.msg)
        this.count(entry.accountId, -1)
        release()
      })
    this.running.set(held.msg, run)
    this.count(entry.accountId, 1)
  }

  private count(accountId: string, by: number): void {
    const n = (this.startedOf.get(accountId) ?? 0) + by
    if (n > 0) this.startedOf.set(accountId, n)
    else this.startedOf.delete(accountId)
  }

  /** Frees the slot once: when the agent run returns (runTask calls it), or else when the task's handling ends. */
  private releaser(accountId: string): () => void {
    let held = true
    return () => {
      if (!held) return
      held = false
      this.slots--
      this.scheduler.finished(accountId)
      this.deps.slotFreed()
      this.dispatch()
    }
  }

  private runContext(): RunContext {
    const { infra, provider, connectors, workerId, cancellations, timeoutMs, log } = this.deps
    const { claimsInDoubt } = this.settlement
    return { infra, provider, connectors, workerId, heartbeats: this.deps.heartbeats(), cancellations, claimsInDoubt, timeoutMs, shutdown: this.shutdown.signal, log }
  }
}

/** A task's run, traced as a consumer span that follows from the request that created it (its TaskCreated's headers). */
function tracedRun(msg: JsMsg, ref: TaskRef, run: () => Promise<void>): Promise<void> {
  const { agentType, taskType } = ref.created.data
  const attributes = { 'messaging.system': 'nats', 'mats.task.id': ref.taskId, 'mats.agent.type': agentType, 'mats.task.type': taskType, 'mats.redelivered': ref.redelivered }
  return inSpan(`run ${agentType}`, { kind: SpanKind.CONSUMER, attributes }, run, contextOf(msg.headers))
}

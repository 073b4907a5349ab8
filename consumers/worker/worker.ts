import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import type { Logger } from 'pino'
import type { AppContext } from '../../src/app-context.js'
import { provisioned } from '../../src/infra/nats/provisioning.js'
import type { AgentProvider } from '../agents/provider.js'
import { NO_CONNECTORS, type PlatformConnectors } from '../connectors/platform-connectors.js'
import { AccountDispatch } from './account-dispatch.js'
import { ArrivalPull, workerConsumerExists } from './arrival-pull.js'
import { RunCancellations } from './cancellations.js'
import { WorkerLiveness } from './liveness.js'
import type { PullLoopDeps } from './pull-loop.js'
import { TaskSlots } from './task-slots.js'
import { Wake } from './wake.js'

export { WORKER_CONSUMER } from './arrival-pull.js'

export interface WorkerOptions {
  readonly concurrency: number
  readonly lookahead: number
  readonly ackWaitMs: number
  readonly timeoutMs: number
  readonly replicas?: number
}

/**
 * Runs agents for TaskCreated events, pulled in turns among the accounts from the dispatch
 * stream (account-dispatch.ts, ADR 0052), and, after an upgrade, from what an older version's
 * `mats-worker` still holds (arrival-pull.ts).
 * It holds up to `lookahead` waiting tasks (kept alive with in-progress acks), starts the best
 * one whenever a slot frees (task-slots.ts), and acknowledges a message only once its task has
 * ended, so a worker that dies leaves its tasks to be redelivered after `ackWaitMs` and failed
 * by another worker (see runTask).
 */
export class TaskWorker {
  readonly workerId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`
  private readonly log: Logger
  private readonly cancellations: RunCancellations
  private readonly slots: TaskSlots
  private readonly liveness: WorkerLiveness
  private readonly wake = new Wake()
  private readonly stopping = new AbortController()
  private arrival: ArrivalPull | undefined
  private accounts: AccountDispatch | undefined
  private loop: Promise<void> | undefined

  constructor(
    private readonly infra: AppContext,
    private readonly provider: AgentProvider,
    private readonly options: WorkerOptions,
    connectors: PlatformConnectors = NO_CONNECTORS,
  ) {
    this.log = infra.log.child({ role: 'worker', workerId: this.workerId })
    this.cancellations = new RunCancellations(this.log)
    const { concurrency, ackWaitMs, timeoutMs } = options
    const heartbeats = () => this.liveness.heartbeats
    const slotFreed = () => this.wake.ring()
    this.slots = new TaskSlots({ infra, provider, connectors, workerId: this.workerId, heartbeats, cancellations: this.cancellations, concurrency, ackWaitMs, timeoutMs, slotFreed, log: this.log })
    this.liveness = new WorkerLiveness(infra, this.workerId, ackWaitMs, () => this.slots.touch(), this.stopping.signal, this.log)
  }

  async start(): Promise<void> {
    await this.openAccountDispatch()
    // Its stream lookup is asked again when it times out: a start beside others can keep NATS busy past NATS_TIMEOUT_MS (startup-race.test.ts).
    await provisioned('follow cancellations', () => this.cancellations.listen(this.infra))
    await this.liveness.start()
    this.loop = Promise.all([this.accounts?.run(), this.arrival?.run()]).then(() => undefined)
    this.log.info({ concurrency: this.options.concurrency, provider: this.provider.name }, 'worker started')
  }

  /**
   * Stops claiming, hands waiting tasks back at once, lets running tasks finish for up to
   * `graceMs`, then fails the rest explicitly (reason `worker_shutdown`).
   */
  async stop(graceMs: number): Promise<void> {
    if (this.stopping.signal.aborted) return
    this.stopping.abort()
    this.slots.close()
    this.wake.ring()
    this.arrival?.stop()
    this.accounts?.stop()
    await this.loop
    await this.slots.drain(graceMs)
    await this.accounts?.markSource()
    this.liveness.stop()
    await this.cancellations.stop()
    await this.liveness.forget()
    this.log.info('worker stopped')
  }

  /** Per-account dispatch; an upgrade that finds `mats-worker` also drains it beside the turns (ADR 0052). */
  private async openAccountDispatch(): Promise<void> {
    const draining = await workerConsumerExists(this.infra.jsm)
    const deps = this.pullDeps()
    this.accounts = await AccountDispatch.open(deps, this.slots, this.options.replicas ?? 1, draining)
    if (draining) this.arrival = new ArrivalPull(deps)
  }

  private pullDeps(): PullLoopDeps {
    const { infra, options, wake, log } = this
    const room = () => options.lookahead - this.slots.waiting
    return { infra, ackWaitMs: options.ackWaitMs, room, deliver: (msg) => this.slots.add(msg), wake, stopping: this.stopping.signal, log }
  }
}

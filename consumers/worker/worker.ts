import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import { AckPolicy, DeliverPolicy, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream'
import type { Logger } from 'pino'
import { decodeEvent } from '../../src/infra/nats/event-store.js'
import { eventTypeSubjects, streamOf } from '../../src/infra/nats/subjects.js'
import type { Recorded } from '../../src/domain/message.js'
import type { TaskCreated } from '../../src/domain/tasks/task.js'
import type { Infra } from '../../src/infra/context.js'
import type { AgentProvider } from '../agents/provider.js'
import { NO_CONNECTORS, type PlatformConnectors } from '../connectors/platform-connectors.js'
import { deliveredTask } from './delivered-task.js'
import { runTask, type TaskRef } from './run-task.js'
import { TaskScheduler } from './scheduler.js'

export const WORKER_CONSUMER = 'mats-worker'

/** A delivered TaskCreated, decoded once, waiting for a slot. */
interface Held {
  readonly msg: JsMsg
  readonly ref: TaskRef
}
const STREAM = streamOf('task')
const NANOS_PER_MS = 1_000_000
const FETCH_EXPIRES_MS = 1000

export interface WorkerOptions {
  readonly concurrency: number
  readonly lookahead: number
  readonly ackWaitMs: number
  readonly timeoutMs: number
}

/**
 * Runs agents for TaskCreated events from one durable consumer shared by every worker
 * process. It holds up to `lookahead` waiting tasks (kept alive with in-progress acks),
 * starts the best one whenever a slot frees (see TaskScheduler), and acknowledges a
 * message only once its task has ended, so a worker that dies leaves its tasks to be
 * redelivered after `ackWaitMs` and failed by another worker (see runTask).
 */
export class TaskWorker {
  readonly workerId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`
  private readonly scheduler = new TaskScheduler<Held>()
  /** Every task this worker is dealing with, until its message is acknowledged. */
  private readonly running = new Map<JsMsg, Promise<void>>()
  /** Tasks holding one of the `concurrency` slots: from their claim until their agent run returns. */
  private slots = 0
  private readonly shutdown = new AbortController()
  private readonly log: Logger
  private fetching: ConsumerMessages | undefined
  private loop: Promise<void> | undefined
  private keepAlive: NodeJS.Timeout | undefined
  private stopping = false
  private wake: (() => void) | undefined

  constructor(
    private readonly infra: Infra,
    private readonly provider: AgentProvider,
    private readonly options: WorkerOptions,
    private readonly connectors: PlatformConnectors = NO_CONNECTORS,
  ) {
    this.log = infra.log.child({ role: 'worker', workerId: this.workerId })
  }

  async start(): Promise<void> {
    await this.ensureConsumer()
    const interval = Math.max(250, Math.min(this.options.ackWaitMs / 3, 10_000))
    this.keepAlive = setInterval(() => this.touchAll(), interval)
    this.loop = this.fetchLoop()
    this.log.info({ concurrency: this.options.concurrency, provider: this.provider.name }, 'worker started')
  }

  /**
   * Stops claiming, hands waiting tasks back at once, lets running tasks finish for up to
   * `graceMs`, then fails the rest explicitly (reason `worker_shutdown`).
   */
  async stop(graceMs: number): Promise<void> {
    if (this.stopping) return
    this.stopping = true
    this.wake?.()
    void this.fetching?.close()
    await this.loop
    for (const entry of this.scheduler.drain()) entry.item.msg.nak()
    const settled = Promise.allSettled(this.running.values())
    const grace = new Promise<'grace over'>((resolve) => setTimeout(() => resolve('grace over'), graceMs).unref())
    if ((await Promise.race([settled, grace])) === 'grace over') {
      this.log.warn({ running: this.running.size }, 'grace period over: failing the tasks still running')
      this.shutdown.abort(new Error('worker shutdown'))
      await settled
    }
    clearInterval(this.keepAlive)
    this.log.info('worker stopped')
  }

  private async ensureConsumer(): Promise<void> {
    const config = {
      durable_name: WORKER_CONSUMER,
      filter_subject: eventTypeSubjects('task', 'TaskCreated'),
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: this.options.ackWaitMs * NANOS_PER_MS,
      max_deliver: -1,
      max_ack_pending: -1,
    }
    const existing = await this.infra.jsm.consumers.info(STREAM, WORKER_CONSUMER).catch(() => null)
    if (!existing) await this.infra.jsm.consumers.add(STREAM, config).catch(() => this.infra.jsm.consumers.update(STREAM, WORKER_CONSUMER, { ack_wait: config.ack_wait }))
    else if (existing.config.ack_wait !== config.ack_wait) await this.infra.jsm.consumers.update(STREAM, WORKER_CONSUMER, { ack_wait: config.ack_wait })
  }

  private async fetchLoop(): Promise<void> {
    const consumer = await this.infra.js.consumers.get(STREAM, WORKER_CONSUMER)
    while (!this.stopping) {
      const room = this.options.lookahead - this.scheduler.size
      if (room <= 0) {
        await new Promise<void>((resolve) => { this.wake = resolve })
        continue
      }
      try {
        this.fetching = await consumer.fetch({ max_messages: room, expires: FETCH_EXPIRES_MS })
        for await (const msg of this.fetching) this.enqueue(msg)
      } catch (err) {
        if (this.stopping) break
        this.log.error({ err }, 'fetching tasks failed; retrying')
        await new Promise((r) => setTimeout(r, FETCH_EXPIRES_MS))
      }
    }
  }

  private enqueue(msg: JsMsg): void {
    if (this.stopping) return msg.nak()
    const event = deliveredTask(msg, this.infra, this.log)
    if (!event) return
    const priority = event.data.priority ?? 'normal'
    const ref = { accountId: event.accountId, taskId: event.aggregateId, created: event, redelivered: msg.redelivered }
    this.scheduler.add({ accountId: event.accountId, priority, seq: msg.seq, item: { msg, ref } })
    this.dispatch()
  }

  /**
   * Starts the best waiting tasks while slots are free. A slot is held while the agent runs,
   * not while its end is appended and its message acknowledged: `concurrency` bounds agent
   * runs (the model calls), and the next run need not wait for the bookkeeping of the last.
   */
  private dispatch(): void {
    while (!this.stopping && this.slots < this.options.concurrency) {
      const entry = this.scheduler.next()
      if (!entry) return
      const { msg, ref } = entry.item
      const ctx = { infra: this.infra, provider: this.provider, connectors: this.connectors, workerId: this.workerId, timeoutMs: this.options.timeoutMs, shutdown: this.shutdown.signal, log: this.log }
      this.slots++
      let held = true
      const release = (): void => {
        if (!held) return
        held = false
        this.slots--
        this.scheduler.finished(entry.accountId)
        this.wake?.()
        this.dispatch()
      }
      const run = runTask(ctx, ref, release)
        .then(() => msg.ack())
        .catch((err: unknown) => {
          // The log or the read models could not be reached: hand the message back for another try.
          this.log.error({ err, taskId: ref.taskId }, 'could not process task; it will be redelivered')
          msg.nak(this.options.ackWaitMs)
        })
        .finally(() => {
          this.running.delete(msg)
          release()
        })
      this.running.set(msg, run)
    }
  }

  private touchAll(): void {
    for (const entry of this.scheduler.items()) entry.item.msg.working()
    for (const msg of this.running.keys()) msg.working()
  }
}

import { randomUUID } from 'node:crypto'
import { setMaxListeners } from 'node:events'
import { hostname } from 'node:os'
import { AckPolicy, DeliverPolicy, JetStreamApiCodes, JetStreamApiError, JetStreamError, type Consumer, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream'
import type { Logger } from 'pino'
import { eventTypeSubjects, streamOf } from '../../src/infra/nats/subjects.js'
import type { AppContext } from '../../src/app-context.js'
import { WorkerHeartbeats } from '../../src/infra/nats/worker-heartbeats.js'
import { ensureDurableConsumer, provisioned } from '../../src/infra/nats/provisioning.js'
import { HandlingFailures, verdictOn } from '../../src/infra/nats/failed-messages.js'
import { PoisonMessages } from '../../src/infra/mongo/poison-messages.js'
import type { AgentProvider } from '../agents/provider.js'
import { NO_CONNECTORS, type PlatformConnectors } from '../connectors/platform-connectors.js'
import { RunCancellations } from './cancellations.js'
import { deliveredTask, type LogOrigin } from './delivered-task.js'
import { AccountTurns } from './account-turns.js'
import { ensureDispatchStream } from '../../src/infra/nats/dispatch-stream.js'
import { ClaimerAliveError, runTask, type TaskRef } from './run-task.js'
import { TaskScheduler } from './scheduler.js'
import { contextOf, inSpan, SpanKind } from '../../src/infra/tracing/spans.js'

export const WORKER_CONSUMER = 'mats-worker'

/** A delivered TaskCreated, decoded once, waiting for a slot. */
interface Held {
  readonly msg: JsMsg
  readonly ref: TaskRef
  readonly origin: LogOrigin
}
const STREAM = streamOf('task')
const NANOS_PER_MS = 1_000_000
const FETCH_EXPIRES_MS = 1000
/** After a failed fetch: long enough not to flood the log while NATS is away. */
const FETCH_RETRY_MS = 1000
const CLAIMER_MARGIN_MS = 100
/** How often a per-account worker reads which accounts wait: finds redeliveries and missed doorbells. */
const REFRESH_MS = 1000

/** `arrival`: one durable over every TaskCreated (mats-worker). `per-account`: the dispatch stream, one durable per account, in turns (ADR 0052). */
export type DispatchMode = 'arrival' | 'per-account'

export interface WorkerOptions {
  readonly concurrency: number
  readonly lookahead: number
  readonly ackWaitMs: number
  readonly timeoutMs: number
  readonly dispatch?: DispatchMode
  readonly replicas?: number
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
  /**
   * Deliveries of a task this worker already holds, by task id: after NATS was out of reach
   * its TaskCreated may come back to the worker that runs it. It keeps its run, and settles
   * these with the first delivery.
   */
  private readonly redeliveries = new Map<string, JsMsg[]>()
  private heartbeats: WorkerHeartbeats | undefined
  private readonly cancellations: RunCancellations
  private beatInterval = 0
  /** Tasks holding one of the `concurrency` slots: from their claim until their agent run returns. */
  private slots = 0
  private readonly shutdown = new AbortController()
  /** How often each TaskCreated's handling failed here, outages aside (failed-messages.ts). */
  private readonly failures = new HandlingFailures()
  /** See RunContext.claimsInDoubt; forgotten once the task's message is settled for good. */
  private readonly claimsInDoubt = new Set<string>()
  private readonly log: Logger
  private fetching: ConsumerMessages | undefined
  private loop: Promise<void> | undefined
  private keepAlive: NodeJS.Timeout | undefined
  private stopping = false
  private wake: (() => void) | undefined
  /** A wake that came while the loop was busy: its next wait returns at once. */
  private rung = false
  private turns: AccountTurns | undefined
  private doorbell: { unsubscribe(): void } | undefined
  /** Per-account dispatch: the `mats-worker` consumer of an upgraded deployment is read until it is empty, then removed. */
  private legacyDrained = false

  constructor(
    private readonly infra: AppContext,
    private readonly provider: AgentProvider,
    private readonly options: WorkerOptions,
    private readonly connectors: PlatformConnectors = NO_CONNECTORS,
  ) {
    this.log = infra.log.child({ role: 'worker', workerId: this.workerId })
    this.cancellations = new RunCancellations(this.log)
    // Every run listens for the shutdown (linkedSignal): as many listeners as runs, not a leak.
    setMaxListeners(0, this.shutdown.signal)
  }

  async start(): Promise<void> {
    if (this.options.dispatch === 'per-account') await this.startTurns()
    else await this.ensureConsumer()
    // Its stream lookup is asked again when it times out: a start beside others can keep NATS busy past NATS_TIMEOUT_MS (startup-race.test.ts).
    await provisioned('follow cancellations', () => this.cancellations.listen(this.infra.js, this.infra.jsm))
    this.heartbeats = await WorkerHeartbeats.open(this.infra.js, this.infra.config.NATS_STREAM_REPLICAS)
    this.beatInterval = Math.max(250, Math.min(this.options.ackWaitMs / 3, 10_000))
    // Idempotent, and the bucket may just have been made on a server busy with other starts.
    await provisioned("write this worker's first heartbeat", () => this.beat())
    this.keepAlive = setInterval(() => this.touchAll(), this.beatInterval)
    void this.touchOnReconnect()
    this.loop = this.turns ? Promise.all([this.turnLoop(), this.legacyDrained ? undefined : this.fetchLoop()]).then(() => undefined) : this.fetchLoop()
    this.log.info({ concurrency: this.options.concurrency, provider: this.provider.name }, 'worker started')
  }

  /**
   * Stops claiming, hands waiting tasks back at once, lets running tasks finish for up to
   * `graceMs`, then fails the rest explicitly (reason `worker_shutdown`).
   */
  async stop(graceMs: number): Promise<void> {
    if (this.stopping) return
    this.stopping = true
    this.nudge()
    void this.fetching?.close()
    this.turns?.stop()
    this.doorbell?.unsubscribe()
    await this.loop
    for (const entry of this.scheduler.drain()) this.settle(entry.item.ref.taskId, entry.item.msg, (m) => m.nak())
    const settled = Promise.allSettled(this.running.values())
    const grace = new Promise<'grace over'>((resolve) => setTimeout(() => resolve('grace over'), graceMs).unref())
    if ((await Promise.race([settled, grace])) === 'grace over') {
      this.log.warn({ running: this.running.size }, 'grace period over: failing the tasks still running')
      this.shutdown.abort(new Error('worker shutdown'))
      await settled
    }
    clearInterval(this.keepAlive)
    await this.cancellations.stop()
    await this.heartbeats?.forget(this.workerId).catch(() => undefined)
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
    await ensureDurableConsumer(this.infra.jsm, STREAM, config, 'the worker consumer')
  }

  /**
   * Claims tasks until stopped. Never rejects: a failure (NATS busy or away, the consumer
   * deleted by hand) is logged and retried with the consumer looked up, or made, again, so
   * a worker that started keeps taking work once NATS answers.
   */
  private async fetchLoop(): Promise<void> {
    let consumer: Consumer | null = null
    while (!this.stopping && !this.legacyDrained) {
      const room = this.options.lookahead - this.scheduler.size
      if (room <= 0) {
        // Beside the turns (an upgrade's drain), the two loops share one wake: neither waits for it alone.
        await this.waitForWake(this.turns ? REFRESH_MS : undefined)
        continue
      }
      try {
        consumer ??= await this.workerConsumer()
        this.fetching = await consumer.fetch({ max_messages: room, expires: FETCH_EXPIRES_MS })
        for await (const msg of this.fetching) this.enqueue(msg)
        if (this.turns) await this.removeLegacyWhenEmpty()
      } catch (err) {
        if (this.stopping) break
        if (this.turns && isConsumerGone(err)) {
          this.legacyDrained = true
          return
        }
        this.log.error({ err }, 'fetching tasks failed; retrying')
        if (isConsumerGone(err)) consumer = null
        await new Promise((r) => setTimeout(r, FETCH_RETRY_MS))
      }
    }
  }

  /** Per-account dispatch (ADR 0052): the dispatch stream, the doorbell, and `mats-worker` left to drain when an upgrade finds it. */
  private async startTurns(): Promise<void> {
    const legacy = await provisioned('look up the worker consumer', () => this.infra.jsm.consumers.info(STREAM, WORKER_CONSUMER)).catch(() => null)
    this.legacyDrained = legacy === null
    await ensureDispatchStream(this.infra.jsm, this.options.replicas ?? 1, !this.legacyDrained)
    this.turns = new AccountTurns(
      this.infra.js,
      this.infra.jsm,
      this.options.ackWaitMs,
      (msg) => this.enqueue(msg),
      (accountId) => this.scheduler.waitingOf(accountId),
      () => this.nudge(),
      this.log,
    )
    // A TaskCreated seen (core NATS, as the API publishes it): its account gets a turn now, not at the next refresh.
    this.doorbell = this.infra.nc.subscribe(eventTypeSubjects('task', 'TaskCreated'), {
      callback: (_err, msg) => {
        const accountId = msg.subject.split('.')[2]
        if (accountId) this.turns?.ring(accountId)
        this.nudge()
      },
    })
  }

  /** Takes turns among the accounts with waiting tasks while the lookahead has room. Never rejects. */
  private async turnLoop(): Promise<void> {
    const turns = this.turns
    if (!turns) return
    let refreshedAt = 0
    while (!this.stopping) {
      try {
        if (Date.now() - refreshedAt >= REFRESH_MS) {
          await turns.refresh()
          refreshedAt = Date.now()
        }
        turns.takeTurns(this.options.lookahead - this.scheduler.size - turns.asked)
      } catch (err) {
        if (this.stopping) break
        this.log.error({ err }, 'reading which accounts have tasks failed; retrying')
        await new Promise((r) => setTimeout(r, FETCH_RETRY_MS))
        continue
      }
      await this.waitForWake(REFRESH_MS)
    }
  }

  /** The upgrade's end: once nothing is pending or unacknowledged on `mats-worker`, it is deleted. */
  private async removeLegacyWhenEmpty(): Promise<void> {
    const info = await this.infra.jsm.consumers.info(STREAM, WORKER_CONSUMER)
    if (info.num_pending > 0 || info.num_ack_pending > 0) return
    await this.infra.jsm.consumers.delete(STREAM, WORKER_CONSUMER).catch(() => undefined)
    this.legacyDrained = true
    this.log.info('the mats-worker consumer is drained and removed: tasks come from the dispatch stream alone')
  }

  private nudge(): void {
    this.rung = true
    this.wake?.()
  }

  /** Returns on the next nudge (or one that came since the last wait), or after `ms`. */
  private async waitForWake(ms?: number): Promise<void> {
    if (!this.rung) {
      let timer: NodeJS.Timeout | undefined
      await new Promise<void>((resolve) => {
        this.wake = resolve
        if (ms !== undefined) timer = setTimeout(resolve, ms)
      })
      clearTimeout(timer)
    }
    this.wake = undefined
    this.rung = false
  }

  private async workerConsumer(): Promise<Consumer> {
    try {
      return await this.infra.js.consumers.get(STREAM, WORKER_CONSUMER)
    } catch (err) {
      // Per-account dispatch only drains `mats-worker`: gone, it is not made again.
      if (!isConsumerGone(err) || this.turns) throw err
      await this.ensureConsumer()
      return this.infra.js.consumers.get(STREAM, WORKER_CONSUMER)
    }
  }

  private enqueue(msg: JsMsg): void {
    if (this.stopping) {
      msg.nak()
      return
    }
    const delivered = deliveredTask(msg, this.infra, this.log)
    if (!delivered) return
    const { event, origin } = delivered
    const again = this.redeliveries.get(event.aggregateId)
    if (again) return void again.push(msg)
    this.redeliveries.set(event.aggregateId, [])
    const priority = event.data.priority ?? 'normal'
    const ref = { accountId: event.accountId, taskId: event.aggregateId, created: event, redelivered: msg.redelivered }
    this.scheduler.add({ accountId: event.accountId, priority, seq: origin.seq, item: { msg, ref, origin } })
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
      const ctx = {
        infra: this.infra,
        provider: this.provider,
        connectors: this.connectors,
        workerId: this.workerId,
        heartbeats: this.requireHeartbeats(),
        cancellations: this.cancellations,
        claimsInDoubt: this.claimsInDoubt,
        timeoutMs: this.options.timeoutMs,
        shutdown: this.shutdown.signal,
        log: this.log,
      }
      this.slots++
      let held = true
      const release = (): void => {
        if (!held) return
        held = false
        this.slots--
        this.scheduler.finished(entry.accountId)
        this.nudge()
        this.dispatch()
      }
      const run = tracedRun(msg, ref, () => runTask(ctx, ref, release))
        .then(() => {
          this.failures.forget(msg)
          this.settleForGood(ref.taskId, msg, (m) => m.ack())
        })
        .catch((err: unknown) => {
          // Asked again just after the claimer's heartbeat runs out; the claimer's own end usually comes first.
          if (err instanceof ClaimerAliveError) {
            this.log.info({ taskId: ref.taskId }, err.message)
            return this.settle(ref.taskId, msg, (m) => m.nak(err.aliveForMs + CLAIMER_MARGIN_MS))
          }
          this.handleFailure(entry.item, err)
        })
        .finally(() => {
          this.running.delete(msg)
          release()
        })
      this.running.set(msg, run)
    }
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
      this.settle(ref.taskId, msg, (m) => m.nak(this.options.ackWaitMs))
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

  private requireHeartbeats(): WorkerHeartbeats {
    if (!this.heartbeats) throw new Error('the worker has not started')
    return this.heartbeats
  }

  /** In-progress acks for every message held, and this worker's heartbeat; both only matter when they reach NATS. */
  private touchAll(): void {
    for (const entry of this.scheduler.items()) entry.item.msg.working()
    for (const msg of this.running.keys()) msg.working()
    for (const again of this.redeliveries.values()) for (const msg of again) msg.working()
    this.beat().catch((err: unknown) => this.log.warn({ err }, 'could not say this worker is alive'))
  }

  /**
   * Alive for one ack wait and one more beat from each beat (one every third of an ack wait):
   * a live worker cut off from NATS for up to an ack wait (a restart, an election, a starved
   * CPU) is not judged dead; a dead one is, about 4/3 of an ack wait after its last beat.
   */
  private async beat(): Promise<void> {
    await this.heartbeats?.beat(this.workerId, this.options.ackWaitMs + this.beatInterval)
  }

  /** Right after NATS comes back, before the server redelivers what it thinks abandoned. */
  private async touchOnReconnect(): Promise<void> {
    for await (const status of this.infra.nc.status()) {
      if (this.stopping) return
      if (status.type === 'reconnect') this.touchAll()
    }
  }
}

/** A task's run, traced as a consumer span that follows from the request that created it (its TaskCreated's headers). */
function tracedRun(msg: JsMsg, ref: TaskRef, run: () => Promise<void>): Promise<void> {
  const { agentType, taskType } = ref.created.data
  const attributes = { 'messaging.system': 'nats', 'mats.task.id': ref.taskId, 'mats.agent.type': agentType, 'mats.task.type': taskType, 'mats.redelivered': ref.redelivered }
  return inSpan(`run ${agentType}`, { kind: SpanKind.CONSUMER, attributes }, run, contextOf(msg.headers))
}

/** The worker consumer was deleted (by hand, say): looked up again, it is made anew. */
function isConsumerGone(err: unknown): boolean {
  if (err instanceof JetStreamApiError) return err.code === JetStreamApiCodes.ConsumerNotFound
  // A pull waiting when it went is ended with the status 409 "consumer deleted".
  return err instanceof JetStreamError && err.message === 'consumer deleted'
}

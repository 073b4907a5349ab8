import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { DeliverPolicy, type Consumer, type ConsumerMessages, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream'
import type { Logger } from 'pino'
import { closeOrdered } from '../../src/infra/nats/ordered-consumers.js'
import { settleWithin } from '../../src/infra/deadline.js'
import { eventTypeSubjects, streamOf } from '../../src/infra/nats/subjects.js'

/** Why a run was aborted when its caller cancelled it (or its supervisor's caller did). */
export class TaskCancelledError extends Error {
  override readonly name = 'TaskCancelledError'
}

/** How long a cancellation is remembered for a run that has not registered yet (claimed a moment ago). */
const EARLY_MS = 60_000
const STOP_MS = 2000
const REOPEN_MS = 1000
const STREAM = streamOf('task')
/** The ordered consumer each worker process holds on MATS_TASKS, as operators see it listed. */
export const CONSUMER_PREFIX = 'worker_cancellations_'

/**
 * The runs of one worker process that a cancellation can abort, by task id. It reads every
 * TaskCancellationRequested stored from its start on, through an ordered consumer: stored
 * events, not core messages, so a cancellation requested while this worker was cut off from
 * NATS is still heard once it is back (the consumer resumes after the last one it read), and
 * one the log refused is never heard at all.
 */
export class RunCancellations {
  private readonly runs = new Map<string, AbortController>()
  private readonly early = new Map<string, number>()
  private consumer: Consumer | undefined
  private messages: ConsumerMessages | undefined
  private stopping = false

  constructor(private readonly log: Logger) {}

  /** Follows the cancellations stored from now on (the stream's head), for good. */
  async listen(js: JetStreamClient, jsm: JetStreamManager): Promise<void> {
    const { state } = await jsm.streams.info(STREAM)
    await this.open(js, state.last_seq + 1)
  }

  /**
   * From a given sequence, not "new": an ordered consumer that resets (missed heartbeats, a
   * reconnect) starts again after the last message it read, and one that has read nothing would
   * otherwise start again from the stream's first message and replay every cancellation ever made.
   */
  private async open(js: JetStreamClient, from: number): Promise<void> {
    const consumer = await js.consumers.get(STREAM, {
      name_prefix: `${CONSUMER_PREFIX}${randomUUID().replaceAll('-', '')}`,
      filter_subjects: [eventTypeSubjects('task', 'TaskCancellationRequested')],
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: from,
    })
    this.consumer = consumer
    this.messages = await consumer.consume()
    void this.follow(js, consumer, this.messages, from)
  }

  /** Reads until stopped; a consumer that gives up (NATS away for long) is replaced by one starting where it stopped. */
  private async follow(js: JetStreamClient, consumer: Consumer, messages: ConsumerMessages, from: number): Promise<void> {
    let next = from
    try {
      for await (const msg of messages) {
        next = msg.seq + 1
        const taskId = msg.subject.split('.')[3]
        if (taskId) this.cancel(taskId)
      }
    } catch (err) {
      this.log.warn({ err }, 'cancellations: the consumer failed; following again')
    }
    await settleWithin(closeOrdered(consumer, messages), STOP_MS)
    while (!this.stopping) {
      await sleep(REOPEN_MS)
      if (this.stopping) return
      try {
        return await this.open(js, next)
      } catch (err) {
        this.log.warn({ err }, 'cancellations: could not follow again yet')
      }
    }
  }

  /** A signal that aborts when the task is cancelled; call `done` when its run has ended. */
  signalFor(taskId: string): AbortSignal {
    const controller = new AbortController()
    this.runs.set(taskId, controller)
    const cancelledAt = this.early.get(taskId)
    if (cancelledAt !== undefined && Date.now() - cancelledAt < EARLY_MS) controller.abort(this.reason(taskId))
    this.early.delete(taskId)
    return controller.signal
  }

  done(taskId: string): void {
    this.runs.delete(taskId)
  }

  cancel(taskId: string): void {
    const run = this.runs.get(taskId)
    if (run) {
      this.log.info({ taskId }, 'task cancelled: aborting its run')
      run.abort(this.reason(taskId))
      return
    }
    this.forgetOld()
    this.early.set(taskId, Date.now())
  }

  /** Aborts this process's run of a task whose end was recorded for it (a delegated run its supervisor's end left behind). */
  abortRun(taskId: string, reason: Error): void {
    this.runs.get(taskId)?.abort(reason)
  }

  /** Deletes the consumer; with NATS away, it is left to the server's inactive threshold after STOP_MS. */
  async stop(): Promise<void> {
    this.stopping = true
    if (this.consumer) await settleWithin(closeOrdered(this.consumer, this.messages), STOP_MS)
  }

  private reason(taskId: string): TaskCancelledError {
    return new TaskCancelledError(`task ${taskId} was cancelled`)
  }

  private forgetOld(): void {
    const now = Date.now()
    for (const [taskId, at] of this.early) if (now - at >= EARLY_MS) this.early.delete(taskId)
  }
}

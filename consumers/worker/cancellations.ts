import { randomUUID } from 'node:crypto'
import { DeliverPolicy, type Consumer, type ConsumerMessages, type JetStreamClient } from '@nats-io/jetstream'
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

  constructor(private readonly log: Logger) {}

  async listen(js: JetStreamClient): Promise<void> {
    this.consumer = await js.consumers.get(streamOf('task'), {
      name_prefix: `${CONSUMER_PREFIX}${randomUUID().replaceAll('-', '')}`,
      filter_subjects: [eventTypeSubjects('task', 'TaskCancellationRequested')],
      deliver_policy: DeliverPolicy.New,
    })
    this.messages = await this.consumer.consume()
    void this.follow(this.messages)
  }

  private async follow(messages: ConsumerMessages): Promise<void> {
    try {
      for await (const msg of messages) {
        const taskId = msg.subject.split('.')[3]
        if (taskId) this.cancel(taskId)
      }
    } catch (err) {
      this.log.error({ err }, 'cancellations: the consumer failed; running tasks can no longer be cancelled on this worker')
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

  /** Deletes the consumer; with NATS away, it is left to the server's inactive threshold after STOP_MS. */
  async stop(): Promise<void> {
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

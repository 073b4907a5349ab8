import type { Logger } from 'pino'
import { StreamFollower, type FollowingNats } from '../../src/infra/nats/stream-follower.js'
import { eventSubjectParts, eventTypeSubjects, streamOf } from '../../src/infra/nats/subjects.js'

/** Why a run was aborted when its caller cancelled it (or its supervisor's caller did). */
export class TaskCancelledError extends Error {
  override readonly name = 'TaskCancelledError'
}

/** How long a cancellation is remembered for a run that has not registered yet (claimed a moment ago). */
const EARLY_MS = 60_000
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
  private readonly follower: StreamFollower

  constructor(private readonly log: Logger) {
    const subjects = {
      stream: streamOf('task'),
      filterSubjects: [eventTypeSubjects('task', 'TaskCancellationRequested')],
      namePrefix: CONSUMER_PREFIX,
      name: 'cancellations',
    }
    this.follower = new StreamFollower(
      subjects,
      (msg) => {
        const { aggregateId: taskId } = eventSubjectParts(msg.subject)
        if (taskId) this.cancel(taskId)
      },
      log,
    )
  }

  /** Follows the cancellations stored from now on (the stream's head), for good. */
  listen(nats: FollowingNats): Promise<void> {
    return this.follower.listen(nats)
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

  /** Deletes the consumer; with NATS away, it is left to the server's inactive threshold. */
  stop(): Promise<void> {
    return this.follower.stop()
  }

  private reason(taskId: string): TaskCancelledError {
    return new TaskCancelledError(`task ${taskId} was cancelled`)
  }

  private forgetOld(): void {
    const now = Date.now()
    for (const [taskId, at] of this.early) if (now - at >= EARLY_MS) this.early.delete(taskId)
  }
}

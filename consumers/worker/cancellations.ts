import type { NatsConnection, Subscription } from '@nats-io/transport-node'
import type { Logger } from 'pino'
import { eventTypeSubjects } from '../../src/infra/nats/subjects.js'

/** Why a run was aborted when its caller cancelled it (or its supervisor's caller did). */
export class TaskCancelledError extends Error {
  override readonly name = 'TaskCancelledError'
}

/** How long a cancellation is remembered for a run that has not registered yet (claimed a moment ago). */
const EARLY_MS = 60_000

/**
 * The runs of one worker process that a cancellation can abort, by task id. It hears every
 * TaskCancellationRequested through a core subscription, which leaves nothing on the
 * server: a message the log then refused (the task had just ended) aborts a run that has
 * already ended, which does nothing.
 */
export class RunCancellations {
  private readonly runs = new Map<string, AbortController>()
  private readonly early = new Map<string, number>()
  private subscription: Subscription | undefined

  constructor(private readonly log: Logger) {}

  listen(nc: NatsConnection): void {
    this.subscription = nc.subscribe(eventTypeSubjects('task', 'TaskCancellationRequested'), {
      callback: (err, msg) => {
        if (err) return this.log.warn({ err }, 'cancellation subscription failed')
        const taskId = msg.subject.split('.')[3]
        if (taskId) this.cancel(taskId)
      },
    })
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
      return run.abort(this.reason(taskId))
    }
    this.forgetOld()
    this.early.set(taskId, Date.now())
  }

  stop(): void {
    this.subscription?.unsubscribe()
  }

  private reason(taskId: string): TaskCancelledError {
    return new TaskCancelledError(`task ${taskId} was cancelled`)
  }

  private forgetOld(): void {
    const now = Date.now()
    for (const [taskId, at] of this.early) if (now - at >= EARLY_MS) this.early.delete(taskId)
  }
}

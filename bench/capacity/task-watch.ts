/**
 * When each task's TaskStarted and end reach NATS, seen by a core subscription of the bench's
 * own: the moment the stream takes the event, before any read model has it. Measured on the
 * bench's clock, which is the clients' (same machine). Open only while a figure needs it: its
 * deliveries are NATS messages too, and the per-task count is taken without it.
 */
import { connect, type NatsConnection } from '@nats-io/transport-node'
import { SUBJECT_ROOT } from '../../src/infra/nats/subjects.js'

type Seen = 'TaskStarted' | 'TaskCompleted' | 'TaskFailed'

export class TaskWatch {
  private readonly seen = new Map<string, Partial<Record<Seen, number>>>()
  private readonly waiters = new Map<string, () => void>()

  private constructor(private readonly nc: NatsConnection) {
    for (const type of ['TaskStarted', 'TaskCompleted', 'TaskFailed'] as const) {
      nc.subscribe(`${SUBJECT_ROOT}.task.*.*.${type}`, {
        callback: (_err, msg) => {
          const at = performance.now()
          const taskId = msg.subject.split('.')[3] ?? ''
          const times = this.seen.get(taskId) ?? {}
          times[type] ??= at
          this.seen.set(taskId, times)
          if (type !== 'TaskStarted') this.waiters.get(taskId)?.()
        },
      })
    }
  }

  static async open(natsUrl: string): Promise<TaskWatch> {
    const nc = await connect({ servers: natsUrl })
    const watch = new TaskWatch(nc)
    await nc.flush()
    return watch
  }

  times(taskId: string): Partial<Record<Seen, number>> {
    return this.seen.get(taskId) ?? {}
  }

  /** Resolves when the task's end was seen; rejects after `timeoutMs`. */
  ended(taskId: string, timeoutMs: number): Promise<void> {
    const times = this.times(taskId)
    if (times.TaskCompleted !== undefined || times.TaskFailed !== undefined) return Promise.resolve()
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(taskId)
        reject(new Error(`task ${taskId} did not end within ${timeoutMs} ms`))
      }, timeoutMs)
      this.waiters.set(taskId, () => {
        clearTimeout(timer)
        this.waiters.delete(taskId)
        resolve()
      })
    })
  }

  close(): Promise<void> {
    return this.nc.close()
  }
}
